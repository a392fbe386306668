//! The one integration-test binary of the `rvlab` command line.

mod support;

// check, run, lessons: the narrated run, JSON traces, exit codes, stdin.
mod run;
// exercises and grade, as a teacher uses them.
mod exercises;
// grade on a class (hand-ins, --report).
mod class;
// course build and exercise link: a teacher's own exercises.
mod course;
// explore: counts, exit codes, replay of counterexamples with `run`.
mod explore;
// serve: the first lines, the kubeconfig, SIGTERM, bad arguments.
mod serve;
// test: rvlab test -- COMMAND, a CI test runner over a real server (issue #15).
mod test_cmd;
// serve --etcd: replicas on one real etcd cluster, under load and faults (issue #17).
mod etcd;
