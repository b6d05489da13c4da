//! The real executable: a stop signal ends the server within its drain time, and its worker
//! processes never outlive it, not even when it is killed outright (they hold no state worth
//! keeping and must not go on using CPU and memory unbounded by anyone).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Self {
        let port = test_devnet::free_port().expect("a free port");
        let dir = tempfile::tempdir().expect("temp dir");
        let config = dir.path().join("docs.toml");
        std::fs::write(
            &config,
            format!(
                "listen = \"127.0.0.1:{port}\"\n[payment]\npay_to = \"{PAY_TO}\"\n[facilitator]\nurl = \"http://127.0.0.1:9/\"\n[ocr]\nengines = 1\n[workers]\nextraction = 1\n"
            ),
        )
        .expect("config");
        let child = Command::new(env!("CARGO_BIN_EXE_docs-server"))
            .args(["--config", &config.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let server = Self {
            child,
            port,
            _dir: dir,
        };
        server.wait_until_up();
        server
    }

    fn get(&self, path: &str) -> Option<String> {
        use std::io::{Read as _, Write as _};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .ok()?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        Some(answer)
    }

    fn wait_until_up(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if self
                .get("/health")
                .is_some_and(|a| a.starts_with("HTTP/1.1 200"))
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server did not come up");
    }

    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    /// The server's child processes (its workers).
    fn workers(&self) -> Vec<i32> {
        let pid = self.child.id();
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("tasks");
        tasks
            .filter_map(Result::ok)
            .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
            .flat_map(|list| {
                list.split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect::<Vec<i32>>()
            })
            .collect()
    }

    fn exited_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.child.try_wait().expect("wait").is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .split(") ")
            .nth(1)
            .is_some_and(|rest| rest.starts_with('Z'))
    })
}

fn gone_within(pids: &[i32], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if pids.iter().all(|p| !alive(*p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Readiness starts an extraction worker (it loads the OCR models).
fn with_a_worker(server: &Server) -> Vec<i32> {
    let _ = server.get("/readiness");
    let workers = server.workers();
    assert!(!workers.is_empty(), "readiness started a worker");
    workers
}

#[test]
fn a_stop_signal_ends_the_server_and_its_workers() {
    let mut server = Server::start();
    let workers = with_a_worker(&server);
    kill(server.pid(), Signal::SIGTERM).expect("signal");
    assert!(
        server.exited_within(Duration::from_secs(10)),
        "SIGTERM is obeyed"
    );
    assert!(
        gone_within(&workers, Duration::from_secs(5)),
        "workers {workers:?} ended"
    );
}

#[test]
fn workers_die_with_a_killed_server() {
    let mut server = Server::start();
    let workers = with_a_worker(&server);
    kill(server.pid(), Signal::SIGKILL).expect("signal");
    assert!(server.exited_within(Duration::from_secs(5)));
    assert!(
        gone_within(&workers, Duration::from_secs(5)),
        "workers {workers:?} outlived their server"
    );
}
