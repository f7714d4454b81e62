#!/bin/sh
# `pnpm test`: Prettier's check beside one turbo run of build, typecheck, lint and test (two tasks at
# once; docs/engineering.md). Arguments go to turbo, e.g. `pnpm test --filter=@platform/api`.
prettier --check . &
prettier=$!
turbo run build typecheck lint test --concurrency=2 "$@" && wait "$prettier"
