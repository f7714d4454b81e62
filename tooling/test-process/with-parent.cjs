// Loaded with `--require` into every process the tests and benchmarks start (startProgram, and the
// helpers the benchmarks fork), each started with a pipe as its stdin that the parent never writes
// to: the process ends when its parent does, also when the parent was killed or crashed and never
// stopped it. The parent's end closes the pipe; the process then sends itself SIGTERM, so the API
// and the sender stop as on a Ctrl-C. The pipe is unreferenced: it keeps nothing alive on its own.
//
// A pipe's stdin is a net.Socket that is no TTY ('ignore' gives a file stream). Two ways that do not
// work: the IPC channel (unreferencing it by hand stops a forked helper's message listener from
// keeping that helper alive), and fs.fstatSync(0) to tell a pipe (called this early, it made the
// sender's later require of Prisma's runtime fail to resolve).
const { Socket } = require('node:net');

const stdin = process.stdin;
if (stdin instanceof Socket && !stdin.isTTY) {
  stdin.once('end', () => process.kill(process.pid, 'SIGTERM'));
  stdin.resume();
  stdin.unref();
}
