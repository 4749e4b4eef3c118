//! Running `rpcwire check` from a test, shared by `tests/cli.rs` and `tests/check_contract.rs`.

use std::io::Write;
use std::process::{Command, Stdio};

/// `rpcwire check ARGS` started with its standard input and output piped to the test.
pub fn spawn_check(args: &[&str], stderr: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// Runs `rpcwire check ARGS` with `stdin` written to it; what it printed and its status.
pub fn run_check(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = spawn_check(args, Stdio::piped());
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}
