//! The `glovebox` binary: parses the command line and hands it to `glovebox::cli::run`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GLOVEBOX_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,llama_cpp_2=off")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = glovebox::cli::Cli::parse();
    match glovebox::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("glovebox: {e:#}");
            ExitCode::FAILURE
        }
    }
}
