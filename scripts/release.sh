#!/usr/bin/env bash
# The platform's releases (CHANGELOG.md, deploy/releases.json; docs/production.md, "Upgrading"):
#   scripts/release.sh ref <ref>        the commit of a release (1.0.0, v1.0.0) or of any git ref
#   scripts/release.sh previous         the release this tree upgrades from (its version)
#   scripts/release.sh build <ref>      that commit checked out in a git worktree under
#                                       .cache/releases/<commit> (ignored by git) and built there
#                                       (cached); the last line is `built: <folder>`
#   scripts/release.sh compat [<ref>]   the upgrade test: this tree's migrations applied while <ref>'s
#                                       API and sender (default: the previous release) serve, then
#                                       this tree's programs beside them (apps/api/release-test);
#                                       with PLATFORM_IMAGE=<name>:<tag>, this tree's from that image
#   scripts/release.sh rehearse [<ref>] the upgrade rehearsal: a cluster started by <ref>'s own
#                                       scripts/cluster.sh (default: the previous release) rolled
#                                       to this tree by `scripts/cluster.sh upgrade` under load
#                                       (apps/api/release-test/rolling.release.test.ts)
#   scripts/release.sh clean            removes the worktrees under .cache/releases
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RELEASES_CACHE=${RELEASES_CACHE:-$ROOT/.cache/releases}
export TURBO_TELEMETRY_DISABLED=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"

rlog() { printf '[release] %s\n' "$*" >&2; }
rdie() { rlog "$*"; exit 1; }
releases() { node "$ROOT/tooling/release/index.mjs" "$@"; }

# A release's tag when this clone has it, else its commit from deploy/releases.json; any other ref
# as git resolves it.
resolve_ref() {
  local ref=$1 commit
  if [[ "$ref" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    local tag="v${ref#v}"
    if commit=$(git -C "$ROOT" rev-parse --verify -q "$tag^{commit}"); then echo "$commit"; return; fi
    commit=$(releases commit "$ref")
    [ -n "$commit" ] || rdie "no release $ref: neither a tag $tag nor an entry in deploy/releases.json"
  else
    commit=$(git -C "$ROOT" rev-parse --verify -q "$ref^{commit}") || rdie "not a git ref: $ref"
  fi
  git -C "$ROOT" cat-file -e "$commit^{commit}" 2>/dev/null ||
    rdie "commit $commit ($ref) is not in this clone (a shallow clone? git fetch --unshallow)"
  echo "$commit"
}

# The API, the sender and migrate of <ref>, built in a worktree of their own. Built once: a folder
# holding .platform-built is reused (`clean` removes them).
build_ref() {
  local commit dir
  commit=$(resolve_ref "$1")
  dir="$RELEASES_CACHE/$commit"
  if [ -f "$dir/.platform-built" ]; then echo "built: $dir"; return; fi
  mkdir -p "$RELEASES_CACHE"
  if [ ! -e "$dir/.git" ]; then
    rm -rf "$dir"
    git -C "$ROOT" worktree prune
    git -C "$ROOT" worktree add --detach --force "$dir" "$commit" >&2
  fi
  rlog "building $1 ($commit) in $dir..."
  local started=$SECONDS
  (
    cd "$dir"
    pnpm install --frozen-lockfile --prefer-offline >"$dir/.platform-install.log" 2>&1 ||
      { tail -n 30 "$dir/.platform-install.log" >&2; exit 1; }
    pnpm exec turbo run build --filter=@platform/api... --filter=@platform/webhooks... --output-logs=errors-only >&2
  )
  touch "$dir/.platform-built"
  rlog "built $1 in $((SECONDS - started)) s"
  echo "built: $dir"
}

# A test of apps/api/release-test against <ref> (default: the previous release), built in its worktree.
release_test() {
  local ref=${1:-$(releases previous)} file=$2 what=$3 dir
  dir=$(build_ref "$ref" | tail -n 1)
  dir=${dir#built: }
  [ -f "$ROOT/apps/api/dist/main.js" ] && [ -f "$ROOT/apps/webhooks/dist/main.js" ] ||
    rdie "build this tree first (pnpm build)"
  rlog "$what $ref ($dir)"
  cd "$ROOT/apps/api"
  PLATFORM_PREVIOUS_DIR=$dir PLATFORM_PREVIOUS_REF=$ref \
    exec pnpm exec vitest run --config vitest.release.config.mjs "release-test/$file.release.test.ts"
}

case "${1:-}" in
  ref) resolve_ref "${2:?usage: scripts/release.sh ref <ref>}" ;;
  previous) releases previous ;;
  build) build_ref "${2:?usage: scripts/release.sh build <ref>}" ;;
  compat) release_test "${2:-}" upgrade "upgrade test: this tree over" ;;
  rehearse) release_test "${2:-}" rolling "upgrade rehearsal: this tree rolled onto a cluster of" ;;
  clean)
    for dir in "$RELEASES_CACHE"/*; do
      [ -d "$dir" ] || continue
      git -C "$ROOT" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
    done
    git -C "$ROOT" worktree prune
    ;;
  *)
    echo "usage: scripts/release.sh ref <ref> | previous | build <ref> | compat [<ref>] | rehearse [<ref>] | clean" >&2
    exit 2
    ;;
esac
