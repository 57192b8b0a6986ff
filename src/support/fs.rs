//! Reading a file that someone else controls (a skill folder, a cloned repository) without hanging
//! or growing: it must be a regular file, it is opened without blocking, and at most a cap is read.
//!
//! A FIFO blocks `open` until a writer appears, `/dev/zero` never ends, and a 200 MB `skill.json`
//! would be held in memory whole; every one of those used to be a plain `read_to_string` away.
//! Callers in async code run this on a blocking thread (`spawn_blocking`): a regular file on a slow
//! disk is still blocking I/O.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What [`read_regular`] read: at most the cap, and the file's full size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Capped {
    /// The first bytes of the file, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// The size the file reported when opened (at least the bytes read).
    pub(crate) size: u64,
}

impl Capped {
    /// Whether the file holds more than was read.
    pub(crate) fn truncated(&self) -> bool {
        self.size > self.bytes.len() as u64
    }

    /// The bytes as text, invalid UTF-8 replaced.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// What a non-regular file is, for an error message a person understands.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {}, not a regular file; refusing to read it", kind_of(meta)),
    )
}

/// Read at most `cap` bytes of the regular file at `path` (symlinks followed). Anything else — a
/// FIFO, a device, a socket, a folder — is an error saying what it is, returned at once.
pub(crate) fn read_regular(path: &Path, cap: u64) -> io::Result<Capped> {
    let (file, size) = open_regular(path)?;
    read_capped(file, size, cap)
}

/// Open the regular file at `path` for reading, with its size, refusing anything else the way
/// [`read_regular`] does; for callers that read only as much as they need.
pub(crate) fn open_regular(path: &Path) -> io::Result<(RegularFile, u64)> {
    // `stat` first, so a device is never even opened (opening some has side effects).
    open_regular_seen(path, &std::fs::metadata(path)?)
}

/// [`open_regular`] for a caller that has just looked at the file: `meta` is what `stat` of
/// `path` (symlinks followed) said, and saves asking again.
pub(crate) fn open_regular_seen(path: &Path, meta: &Metadata) -> io::Result<(RegularFile, u64)> {
    if !meta.is_file() {
        return Err(not_regular(meta));
    }
    // The path may have been swapped since: open without blocking (a FIFO would block here),
    // then check what was actually opened.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(not_regular(&opened));
    }
    Ok((RegularFile { file, blocking: false }, opened.len()))
}

/// [`open_regular_seen`] for `name` inside the open folder `dir`, whose listing said it is a
/// regular file: the kernel walks only `name`, and what the file is is asked of the opened file
/// itself (its metadata is returned: the stamp of the very file that will be read).
pub(crate) fn open_regular_at(dir: impl std::os::fd::AsFd, name: &Path) -> io::Result<(RegularFile, Metadata)> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = File::from(rustix::fs::openat(dir, name, flags, Mode::empty())?);
    let opened = file.metadata()?;
    if !opened.is_file() {
        return Err(not_regular(&opened));
    }
    Ok((RegularFile { file, blocking: false }, opened))
}

/// A regular file opened without blocking, read as if it had been opened normally. Local file
/// systems ignore "without blocking" for regular files; a file system that does not (some FUSE
/// ones) says "would block" once, and the file is then made blocking and the read repeated. Doing
/// that only when asked spares two system calls per file, and discovery opens thousands.
#[derive(Debug)]
pub(crate) struct RegularFile {
    file: File,
    blocking: bool,
}

impl Read for RegularFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && !self.blocking => {
                    let flags = rustix::fs::fcntl_getfl(&self.file)?;
                    rustix::fs::fcntl_setfl(&self.file, flags - rustix::fs::OFlags::NONBLOCK)?;
                    self.blocking = true;
                }
                read => return read,
            }
        }
    }
}

fn read_capped(file: RegularFile, size: u64, cap: u64) -> io::Result<Capped> {
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(cap)).unwrap_or(0));
    file.take(cap).read_to_end(&mut bytes)?;
    let size = size.max(bytes.len() as u64);
    Ok(Capped { bytes, size })
}

/// [`read_regular`], but a file over `cap` is an error naming its size, for files that are useless
/// when cut (JSON, cassettes).
pub(crate) fn read_whole(path: &Path, cap: u64) -> io::Result<Capped> {
    let read = read_regular(path, cap)?;
    if read.truncated() {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("it is {} bytes, over the {cap}-byte limit for this file", read.size),
        ));
    }
    Ok(read)
}

/// Whether `path` (links followed) is a regular file with an execute bit set: what `execve` and a
/// `$PATH` lookup would run.
pub(crate) fn is_executable_file(path: &Path) -> bool {
    exec_bit(path) == Some(true)
}

/// Whether `path` (links followed) is a regular file with no execute bit at all: a script
/// committed without `+x`.
pub(crate) fn lacks_exec_bit(path: &Path) -> bool {
    exec_bit(path) == Some(false)
}

/// Whether a regular file at `path` has any execute bit; `None` when there is no regular file.
fn exec_bit(path: &Path) -> Option<bool> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok().filter(Metadata::is_file)?;
    Some(meta.permissions().mode() & 0o111 != 0)
}

/// Write through a temporary file and a rename, so a crash or a second agent never leaves half
/// a file; mode 0600 (the agent's state files name the user's folders and commands).
pub(crate) fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    std::io::Write::write_all(&mut f, bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "hello world").unwrap();
        let read = read_regular(&path, 5).unwrap();
        assert_eq!(read.bytes, b"hello");
        assert_eq!(read.size, 11);
        assert!(read.truncated());
        assert_eq!(read_regular(&path, 100).unwrap().text(), "hello world");
        assert!(read_whole(&path, 5).unwrap_err().to_string().contains("11 bytes"));
        assert!(!read_whole(&path, 11).unwrap().truncated());
    }

    #[test]
    fn a_read_that_would_block_is_repeated_blocking() {
        // A pipe stands in for a file system that honours "without blocking": its first read
        // finds nothing yet.
        let (reader, mut writer) = std::io::pipe().unwrap();
        let reader = File::from(std::os::fd::OwnedFd::from(reader));
        rustix::fs::fcntl_setfl(
            &reader,
            rustix::fs::fcntl_getfl(&reader).unwrap() | rustix::fs::OFlags::NONBLOCK,
        )
        .unwrap();
        let mut file = RegularFile {
            file: reader,
            blocking: false,
        };
        let writing = std::thread::spawn(move || {
            // Long enough that the first read comes first even on a loaded machine.
            std::thread::sleep(std::time::Duration::from_millis(200));
            std::io::Write::write_all(&mut writer, b"late").unwrap();
        });
        let mut buf = [0u8; 8];
        assert_eq!(file.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"late");
        assert!(file.blocking);
        writing.join().unwrap();
    }

    #[test]
    fn refuses_fifos_devices_and_folders_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for (path, kind) in [
            (fifo.as_path(), "FIFO"),
            (link.as_path(), "character device"),
            (Path::new("/dev/null"), "character device"),
            (dir.path(), "folder"),
        ] {
            let err = read_regular(path, 1024).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
            assert!(err.to_string().contains(kind), "{path:?}: {err}");
        }
        assert_eq!(
            read_regular(&dir.path().join("missing"), 1).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
