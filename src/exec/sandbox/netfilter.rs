//! The seccomp program `strict` adds for what Landlock's network rules do not cover.
//!
//! Landlock (ABI 4–7) refuses TCP connect and bind only. A command could still send UDP (DNS
//! tunnels, QUIC, any datagram), open raw or packet sockets, use SCTP or MPTCP (stream sockets
//! Landlock's TCP rules do not see), send with TCP Fast Open (a connect inside `sendto`), or create
//! sockets through io_uring, which seccomp cannot see into. So under `strict`, for a skill that
//! does not declare the network, the filter refuses with `EACCES` (as Landlock does):
//! - `socket()` of any family but Unix, netlink (local: glibc's resolver and `ip` use it), IPv4
//!   and IPv6; of IPv4/IPv6 anything but a plain TCP stream;
//! - `sendto`/`sendmsg`/`sendmmsg` with `MSG_FASTOPEN`;
//! - `io_uring_setup`;
//! - on x86_64, the same calls made through the x32 ABI (518 and 538 are x32's `sendmsg` and
//!   `sendmmsg`).
//!
//! Unix sockets stay open: they are how programs reach local services (and refusing them breaks
//! name lookups and logging); abstract ones are scoped to the sandbox by Landlock (ABI 6).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// `MSG_FASTOPEN` from `<sys/socket.h>` (the libc crate does not export it on every target).
const MSG_FASTOPEN: u64 = 0x2000_0000;

/// Compile the program for this machine's architecture.
pub(crate) fn program() -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules()?);
    rules.insert(libc::SYS_sendto, vec![fast_open(3)?]);
    rules.insert(libc::SYS_sendmsg, vec![fast_open(2)?]);
    rules.insert(libc::SYS_sendmmsg, vec![fast_open(3)?]);
    // An empty rule list matches every call.
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    #[cfg(target_arch = "x86_64")]
    {
        // The same calls through the x32 ABI (numbers with bit 30 set, same audit architecture),
        // where a kernel offers it: refused outright, nobody runs x32 programs.
        const X32: i64 = 0x4000_0000;
        for nr in [libc::SYS_socket, libc::SYS_sendto, libc::SYS_io_uring_setup, 518, 538] {
            rules.insert(X32 | nr, Vec::new());
        }
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES.unsigned_abs()),
        arch,
    )?;
    Ok(BpfProgram::try_from(filter)?)
}

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, seccompiler::Error> {
    Ok(SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)?)
}

fn word(v: i32) -> u64 {
    u64::from(v.unsigned_abs())
}

/// `socket(domain, type, protocol)` calls to refuse (each rule is an AND of its conditions).
fn socket_rules() -> Result<Vec<SeccompRule>, seccompiler::Error> {
    use SeccompCmpOp::{Eq, Ne};
    let allowed = [libc::AF_UNIX, libc::AF_NETLINK, libc::AF_INET, libc::AF_INET6];
    let other_family = allowed.iter().map(|f| arg(0, Ne, word(*f))).collect::<Result<_, _>>()?;
    let mut rules = vec![SeccompRule::new(other_family)?];
    let stream = libc::SOCK_STREAM;
    let flags = [
        0,
        libc::SOCK_NONBLOCK,
        libc::SOCK_CLOEXEC,
        libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
    ];
    for family in [libc::AF_INET, libc::AF_INET6] {
        // Not a stream: UDP, raw, SCTP's seqpacket.
        let mut not_stream = vec![arg(0, Eq, word(family))?];
        for f in flags {
            not_stream.push(arg(1, Ne, word(stream | f))?);
        }
        rules.push(SeccompRule::new(not_stream)?);
        // A stream that is not TCP: MPTCP, SCTP.
        rules.push(SeccompRule::new(vec![
            arg(0, Eq, word(family))?,
            arg(2, Ne, 0)?,
            arg(2, Ne, word(libc::IPPROTO_TCP))?,
        ])?);
    }
    Ok(rules)
}

/// A send whose flags (argument `index`) include `MSG_FASTOPEN`.
fn fast_open(index: u8) -> Result<SeccompRule, seccompiler::Error> {
    Ok(SeccompRule::new(vec![arg(
        index,
        SeccompCmpOp::MaskedEq(MSG_FASTOPEN),
        MSG_FASTOPEN,
    )?])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_compiles_for_this_machine() {
        if TargetArch::try_from(std::env::consts::ARCH).is_ok() {
            let program = program().unwrap();
            assert!(
                program.len() > 20 && program.len() < 400,
                "{} instructions",
                program.len()
            );
        }
    }
}
