//! `rpcwire`: check JSON-RPC / MCP streams (and, later, proxy them).

mod check;
mod proxy;
mod session;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Validating tools for JSON-RPC 2.0 and MCP streams.
#[derive(Debug, Parser)]
#[command(name = "rpcwire", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read a stream (a file or stdin) and report every message.
    Check(check::CheckArgs),
    /// Run an MCP stdio server behind a validating proxy: `rpcwire proxy [OPTIONS] -- CMD [ARGS...]`.
    Proxy(proxy::ProxyArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Proxy(args) => proxy::run(&args),
    }
}
