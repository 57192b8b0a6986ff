//! `agent sandbox status`: what this machine's kernel can enforce under the run's settings, checked
//! by running one confined command.

use super::Run;
use crate::cli::SandboxCommand;
use crate::config::Config;
use crate::exec::sandbox::probe::{self, Probe};
use crate::exit::ExitCode;
use crate::output::Report;
use crate::output::report::SandboxStatus;

/// `agent sandbox ACTION` (none: `status`, the only one, so the bare command answers rather than
/// prints help); a sandbox that does not hold is a failed check (1), as `skills check` is.
pub(super) fn run(action: Option<&SandboxCommand>, run: &Run<'_>) -> ExitCode {
    match action.unwrap_or(&SandboxCommand::Status) {
        SandboxCommand::Status => {
            let status = status(&run.config);
            let failed = status.enforced == Some(false);
            run.front.output.report(Report::SandboxStatus(status));
            if failed { ExitCode::Internal } else { ExitCode::Answered }
        }
    }
}

/// The status report; runs the check (a confined `sh` that must fail to create a file).
fn status(config: &Config) -> SandboxStatus {
    let settings = &config.sandbox;
    let k = &settings.kernel;
    let (enforced, check) = match probe::run(k) {
        Probe::Enforced => (
            Some(true),
            "a confined sh could not create a file outside its folders".to_string(),
        ),
        Probe::NotEnforced => (
            Some(false),
            "a confined sh created a file outside its folders: the sandbox does not hold here".to_string(),
        ),
        Probe::Unavailable => (None, "nothing to check: no Landlock".to_string()),
        Probe::Failed(why) => (None, format!("the check could not run: {why}")),
    };
    SandboxStatus {
        mode: settings.mode,
        in_force: settings.sandbox_name(),
        kernel_abi: k.reported_abi,
        abi: k.abi,
        missing: k.missing.clone(),
        filesystem: k.filesystem(),
        truncate: k.truncate(),
        tcp: k.tcp(),
        device_ioctl: k.device_ioctl(),
        scopes: k.scopes(),
        seccomp: k.seccomp,
        enforced,
        check,
        warning: settings.warning(),
    }
}
