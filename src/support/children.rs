//! The agent's own child processes that must outlive any one command: commands' own processes
//! while they run, MCP servers, short helpers. When a command ends, every other direct child of
//! the agent is taken for one of its orphans (reparented to the agent, its subreaper) and killed,
//! so whatever the agent starts for itself is listed here, from its spawn to its end.

use std::sync::{Mutex, MutexGuard};

static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The list, locked. Hold it across a spawn and push the new pid before letting go, so a command
/// ending meanwhile never sees the child unlisted.
pub(crate) fn lock() -> MutexGuard<'static, Vec<i32>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// `pid` has ended (or is being ended by its owner): no longer listed.
pub(crate) fn forget(pid: i32) {
    lock().retain(|p| *p != pid);
}

/// Removes its pid from the list when dropped, so an owner cannot forget to.
#[derive(Debug)]
pub(crate) struct Listed(pub i32);

impl Drop for Listed {
    fn drop(&mut self) {
        forget(self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_pid_leaves_the_list_with_its_guard() {
        let pid = i32::MAX - 7;
        lock().push(pid);
        let listed = Listed(pid);
        assert!(lock().contains(&pid));
        drop(listed);
        assert!(!lock().contains(&pid));
    }
}
