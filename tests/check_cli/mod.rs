//! Running `rpcwire check` from a test, shared by `tests/cli.rs` and `tests/check_contract.rs`.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `rpcwire check ARGS` with `stdin` written to it; what it printed and its status.
pub fn run_check(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}
