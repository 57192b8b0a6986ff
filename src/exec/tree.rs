//! Every process a command starts, found and ended — even those that call `setsid`, daemonise or
//! double-fork (docs/design.md#processes).
//!
//! The agent makes itself a child subreaper, so a process whose parent dies is reparented to the
//! agent instead of to init. Everything a command started is therefore, at any moment, either in
//! the tree below the command's own process or below an orphan that is now the agent's direct
//! child. Killing walks `/proc` for exactly that set, freezes it (SIGSTOP, so nothing can fork
//! while we look), kills it, and repeats until nothing is left; orphans are then reaped by pid.
//! The process groups and sessions a command creates do not matter to any of this.

use std::collections::{HashMap, HashSet};
use std::sync::{MutexGuard, Once};
use std::time::Duration;

use rustix::process::{Pid, Signal, WaitOptions};

/// Rounds of freeze-and-kill before giving up on a process that keeps forking or will not die.
const MAX_ROUNDS: usize = 50;

/// Make the agent the reaper of orphans its commands leave (once per process; a failure, on a
/// kernel without subreapers, only means escaped processes are found less reliably).
pub(crate) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Err(e) = rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
            tracing::debug!("cannot become a child subreaper: {e}");
        }
    });
}

/// The registry lock, held while a command is spawned and registered: commands' own processes
/// (and the agent's other children, such as MCP servers) running now, so concurrent commands in
/// one agent never treat each other's processes as orphans.
pub(crate) fn spawn_lock() -> MutexGuard<'static, Vec<i32>> {
    crate::support::children::lock()
}

/// Run a short helper process to its end (the sandbox probe), registered like a command's own
/// process: otherwise a command ending meanwhile would take it for one of its orphans and kill it.
pub(crate) fn run_registered(cmd: &mut std::process::Command) -> std::io::Result<std::process::Output> {
    let mut roots = spawn_lock();
    let child = cmd.spawn()?;
    // A pid always fits in i32 on Linux (pid_max is at most 2^22).
    let tree = Tree::register(child.id().cast_signed(), &mut roots);
    drop(roots);
    let output = child.wait_with_output();
    tree.finish();
    output
}

/// One command's processes: its own process (`root`) and everything descending from it.
/// Dropping it while armed ends them all, so a cancelled turn (Ctrl-C) leaves nothing behind.
#[derive(Debug)]
pub(crate) struct Tree {
    root: i32,
    armed: bool,
}

impl Tree {
    /// Track the tree below `root`; call with the [`spawn_lock`] guard that covered the spawn.
    pub(crate) fn register(root: i32, roots: &mut MutexGuard<'static, Vec<i32>>) -> Self {
        roots.push(root);
        Self { root, armed: true }
    }

    /// Send `signal` to every process of the command once (a polite SIGTERM before the kill).
    pub(crate) fn signal_all(&self, signal: Signal) {
        for pid in members(self.root) {
            send(pid, signal);
        }
    }

    /// Freeze and kill every process of the command and reap the orphans among them. Blocking
    /// (it reads `/proc` and waits a few milliseconds between rounds).
    pub(crate) fn kill_all(&self) {
        kill_everything(self.root);
    }

    /// The command is over: end whatever it left and stop tracking it.
    pub(crate) fn finish(mut self) {
        kill_everything(self.root);
        self.armed = false;
        forget(self.root);
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        if self.armed {
            kill_everything(self.root);
            forget(self.root);
        }
    }
}

fn forget(root: i32) {
    spawn_lock().retain(|p| *p != root);
}

fn send(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        // ESRCH (already gone) is the only expected failure, and it means there is nothing to do.
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// Freeze everything, kill it, reap orphans; again until a sweep finds nothing alive. When the
/// command left nothing behind (the usual case) this is one walk of `/proc`.
fn kill_everything(root: i32) {
    for _ in 0..MAX_ROUNDS {
        let table = process_table();
        let alive = collect(root, &table, Zombies::Skip);
        if alive.is_empty() {
            reap_orphans(root, &table);
            return;
        }
        // Freeze until a sweep finds no process we have not stopped: a fork racing the first
        // SIGSTOP shows up in the next sweep, and a stopped process cannot fork again.
        let mut frozen: HashSet<i32> = HashSet::new();
        let mut fresh = alive;
        for _ in 0..MAX_ROUNDS {
            if fresh.is_empty() {
                break;
            }
            for pid in fresh {
                send(pid, Signal::STOP);
                frozen.insert(pid);
            }
            fresh = members(root).into_iter().filter(|p| !frozen.contains(p)).collect();
        }
        for pid in &frozen {
            send(*pid, Signal::KILL);
        }
        std::thread::sleep(Duration::from_millis(5));
        reap_orphans(root, &process_table());
    }
    tracing::warn!("processes of command {root} survived {MAX_ROUNDS} rounds of SIGKILL");
}

/// What `/proc/PID/stat` says about one process.
#[derive(Debug, Clone, Copy)]
struct Entry {
    ppid: i32,
    zombie: bool,
}

/// Every process on the system with its parent, from `/proc`.
fn process_table() -> HashMap<i32, Entry> {
    let mut table = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in dir.filter_map(Result::ok) {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        // Not a file the agent reads on anyone's behalf: kernel text, always small and regular.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some(e) = parse_stat(&stat) {
            table.insert(pid, e);
        }
    }
    table
}

/// `pid (comm) state ppid …`; `comm` may hold spaces and parentheses, so parse from the last `)`.
fn parse_stat(stat: &str) -> Option<Entry> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some(Entry {
        ppid,
        zombie: state == "Z" || state == "X",
    })
}

/// Whether [`collect`] returns processes that have ended but not been reaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zombies {
    /// Every process of the tree, ended or not.
    Include,
    /// Only processes that can still run.
    Skip,
}

/// The processes that belong to the command of `root`: `root` and its descendants, plus orphans
/// reparented to the agent (its direct children that are no command's own process) and theirs.
/// With [`Zombies::Skip`], only processes that can still run are returned.
fn collect(root: i32, table: &HashMap<i32, Entry>, zombies: Zombies) -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let other_roots: Vec<i32> = spawn_lock().iter().copied().filter(|p| *p != root).collect();
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (pid, e) in table {
        children.entry(e.ppid).or_default().push(*pid);
    }
    let mut stack: Vec<i32> = children
        .get(&me)
        .map(|c| c.iter().copied().filter(|p| !other_roots.contains(p)).collect())
        .unwrap_or_default();
    // Once reaped, the root's pid may be reused by an unrelated process: only our child counts.
    if table.get(&root).is_some_and(|e| e.ppid == me) && !stack.contains(&root) {
        stack.push(root);
    }
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    while let Some(pid) = stack.pop() {
        if !seen.insert(pid) {
            continue;
        }
        found.push(pid);
        if let Some(kids) = children.get(&pid) {
            stack.extend(kids);
        }
    }
    found.retain(|p| zombies == Zombies::Include || table.get(p).is_some_and(|e| !e.zombie));
    found
}

/// The command's processes that can still run.
fn members(root: i32) -> Vec<i32> {
    collect(root, &process_table(), Zombies::Skip)
}

/// Reap the command's dead orphans (direct children of the agent), by pid: never `waitpid(-1)`,
/// which would steal the exit status of tokio's own children (the command's own process is one).
fn reap_orphans(root: i32, table: &HashMap<i32, Entry>) {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    for pid in collect(root, table, Zombies::Include) {
        let orphan = pid != root && table.get(&pid).is_some_and(|e| e.ppid == me && e.zombie);
        if let (true, Some(p)) = (orphan, Pid::from_raw(pid)) {
            let _ = rustix::process::waitpid(Some(p), WaitOptions::NOHANG);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_even_with_odd_names() {
        let e = parse_stat("4242 (a) b (c) S 17 4242 4242 0 -1").unwrap();
        assert_eq!(e.ppid, 17);
        assert!(!e.zombie);
        assert!(parse_stat("1 (x) Z 0").unwrap().zombie);
        assert!(parse_stat("garbage").is_none());
    }
}
