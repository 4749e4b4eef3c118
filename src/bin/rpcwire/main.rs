//! `rpcwire`: check JSON-RPC / MCP streams and sessions, and proxy MCP stdio servers.

// The proxy runs its server in a process group of its own and forwards signals to it.
#[cfg(not(unix))]
compile_error!("the rpcwire command-line tool needs a Unix system (process groups, signals)");

/// `eprintln!`, without its panic when stderr cannot be written (its reader closed the read
/// end of the pipe: a client of the proxy, a shell's `2>&1 | head`): what is said there is
/// lost, and nothing else is.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod check;
mod proxy;
mod replay;
mod session;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// Validating tools for JSON-RPC 2.0 and MCP streams.
// (`about` is this doc comment: `about` without a value would be the crate's description,
// which describes the library, not the tool.)
#[derive(Debug, Parser)]
#[command(name = "rpcwire", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read a stream (a file or stdin) and report each message that is not valid (every one
    /// with --json) and a summary; or check a whole session
    /// (`--session-log FILE`, or `--c2s FILE --s2c FILE`).
    Check(check::CheckArgs),
    /// Run an MCP stdio server behind a validating proxy: `rpcwire proxy [OPTIONS] -- CMD [ARGS...]`.
    Proxy(proxy::ProxyArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help, --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        // (Without a subcommand clap's error is the whole help, whose first paragraph is the
        // crate's description, no error at all.)
        Err(e)
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                && std::env::args_os().len() <= 1 =>
        {
            say!("rpcwire: error: a subcommand is required: check or proxy (see `rpcwire --help`)");
            return ExitCode::from(2);
        }
        Err(e) => {
            say!("{}", one_line(&e));
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Proxy(args) => proxy::run(&args),
    }
}

/// A usage error as one line: clap's first paragraph (the error itself, without the usage and
/// tips that follow), its lines joined, then what helps to fix it (clap's "a similar argument
/// exists" tips, and where the proxy's server command goes), and a pointer to `--help`.
fn one_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered.split("\n\n").next().unwrap_or_default();
    let words: Vec<&str> = first.split_whitespace().collect();
    let line = words.join(" ");
    let mut line = line.strip_prefix("error: ").unwrap_or(&line).to_string();
    // (`args_os`: an argument that is not UTF-8 is a usage error like any other, which
    // `args` would turn into a panic.)
    let sub = std::env::args_os()
        .nth(1)
        .filter(|a| a == "check" || a == "proxy");
    for hint in similar_name_tips(&rendered) {
        line = format!("{line}; {hint}");
    }
    if sub.as_deref() == Some("proxy".as_ref()) && is_server_command_without_dashes(e) {
        line += "; the server's command goes after `--`: rpcwire proxy [OPTIONS] -- CMD [ARGS...]";
    }
    let help = sub.map_or("rpcwire --help".to_string(), |s| {
        format!("rpcwire {} --help", s.to_string_lossy())
    });
    format!("rpcwire: error: {line} (see `{help}`)")
}

/// Clap's tips naming a flag, value or subcommand close to a mistyped one ("a similar argument
/// exists: '--dialect'"). (Its other tip, "to pass '--x' as a value, use '-- --x'", is left
/// out: it would make a mistyped option of the proxy the server's command.)
fn similar_name_tips(rendered: &str) -> impl Iterator<Item = &str> {
    rendered
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .filter(|tip| tip.starts_with("a similar") || tip.starts_with("some similar"))
}

/// Whether `e` is a word that is no option where the proxy takes only options: the server's
/// command, given without the `--` that must come before it (`rpcwire proxy node server.js`).
fn is_server_command_without_dashes(e: &clap::Error) -> bool {
    use clap::error::{ContextKind, ContextValue};
    e.kind() == ErrorKind::UnknownArgument
        && matches!(
            e.get(ContextKind::InvalidArg),
            Some(ContextValue::String(arg)) if !arg.starts_with('-')
        )
}
