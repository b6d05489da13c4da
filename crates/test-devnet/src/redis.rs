//! A `redis-server` process on 127.0.0.1 for tests of the shared state (Debian's package,
//! installed by `cargo xtask ci`): a free port, nothing written to disk, killed when dropped.
//! It can be stopped and started again on the same port, to prove that a service fails closed
//! while Redis is away and comes back without a restart.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::anvil::{DevnetError, free_port};

/// Where Debian installs the server.
pub const REDIS_SERVER: &str = "/usr/bin/redis-server";

/// A running (or stopped) redis-server.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    binary: PathBuf,
    /// Its port (kept across [`Self::stop`] and [`Self::start`]).
    pub port: u16,
}

impl RedisServer {
    /// Starts redis-server on a free loopback port and waits until it answers `PING`.
    pub fn spawn() -> Result<Self, DevnetError> {
        let binary = std::env::var_os("REDIS_SERVER")
            .map_or_else(|| PathBuf::from(REDIS_SERVER), PathBuf::from);
        if !binary.exists() {
            return Err(DevnetError::Process(format!(
                "redis-server is not installed at {}; `cargo xtask ci` installs Debian's redis-server",
                binary.display()
            )));
        }
        let mut server = Self {
            child: None,
            binary,
            port: free_port()?,
        };
        server.start()?;
        Ok(server)
    }

    /// Its URL (`redis://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server again on its port (after [`Self::stop`]); a no-op while it runs.
    pub fn start(&mut self) -> Result<(), DevnetError> {
        if self.child.is_some() {
            return Ok(());
        }
        // No snapshot, no append-only file: nothing of a test outlives the process, and
        // nothing is written to the working directory.
        let child = Command::new(&self.binary)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .args(["--dir", &std::env::temp_dir().display().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DevnetError::Process(format!("starting redis-server: {e}")))?;
        self.child = Some(child);
        self.wait_answering()
    }

    /// Kills the server (SIGKILL: as abrupt as a crash or a lost network).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends `command` (inline protocol) and answers the first reply line, for a test's own
    /// look at the data (`DBSIZE`, `INFO stats`).
    pub fn command(&self, command: &str) -> Result<String, DevnetError> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.write_all(format!("{command}\r\nQUIT\r\n").as_bytes())?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer)
    }

    fn wait_answering(&mut self) -> Result<(), DevnetError> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = String::new();
        while Instant::now() < deadline {
            match self.command("PING") {
                Ok(answer) if answer.starts_with("+PONG") => return Ok(()),
                Ok(answer) => last = answer,
                Err(e) => last = e.to_string(),
            }
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                self.child = None;
                return Err(DevnetError::Process(format!(
                    "redis-server exited early with {status}; is port {} in use?",
                    self.port
                )));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Err(DevnetError::Process(format!(
            "redis-server on port {} never answered PING: {last}",
            self.port
        )))
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devnet_redis_starts_stops_and_starts_again_on_its_port() {
        let mut redis = RedisServer::spawn().expect("redis-server runs");
        assert!(redis.command("SET a 1").expect("set").starts_with("+OK"));
        assert!(redis.command("GET a").expect("get").contains('1'));
        redis.stop();
        assert!(redis.command("PING").is_err(), "stopped means refused");
        redis.start().expect("starts again");
        assert!(
            redis.command("GET a").expect("get").starts_with("$-1"),
            "nothing survives a restart: {}",
            redis.url()
        );
    }
}
