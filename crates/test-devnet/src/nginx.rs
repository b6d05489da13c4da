//! Debian's nginx as a round-robin load balancer on a loopback port in front of replicas of a
//! service, for the multi-replica tests (issue 21): one process (`master_process off`), its
//! configuration, temp files and log in a temporary directory, killed when dropped.

use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::anvil::{DevnetError, free_port};

/// Where Debian installs nginx.
pub const NGINX: &str = "/usr/sbin/nginx";

/// A running nginx balancing over some loopback ports.
#[derive(Debug)]
pub struct Nginx {
    child: Option<Child>,
    dir: tempfile::TempDir,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
}

impl Nginx {
    /// nginx on a free loopback port, sending requests to `upstreams` (127.0.0.1 ports) in
    /// turn, with `X-Forwarded-For` appended as a trusted proxy does. A request is never
    /// retried on another replica (`proxy_next_upstream off`): a paid request is not
    /// idempotent. `proxy_buffer_size` is 16 KiB: a 402's `PAYMENT-REQUIRED` header may take
    /// up to 8 KiB, past nginx's default 4 KiB (which answers 502 "upstream sent too big
    /// header").
    pub fn round_robin(upstreams: &[u16]) -> Result<Self, DevnetError> {
        let binary = std::env::var_os("NGINX").map_or_else(|| PathBuf::from(NGINX), PathBuf::from);
        if !binary.exists() {
            return Err(DevnetError::Process(format!(
                "nginx is not installed at {}; `cargo xtask ci` installs Debian's nginx",
                binary.display()
            )));
        }
        let dir = tempfile::tempdir()?;
        let port = free_port()?;
        let root = dir.path().display().to_string();
        let servers: String = upstreams
            .iter()
            .map(|upstream| format!("    server 127.0.0.1:{upstream};\n"))
            .collect();
        let config = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {root}/nginx.pid;\nerror_log {root}/error.log warn;\n\
             events {{ worker_connections 512; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {root}/body;\n  proxy_temp_path {root}/proxy;\n  fastcgi_temp_path {root}/fastcgi;\n  uwsgi_temp_path {root}/uwsgi;\n  scgi_temp_path {root}/scgi;\n  client_max_body_size 40m;\n  client_body_buffer_size 1m;\n\
               upstream replicas {{\n{servers}  }}\n\
               server {{\n    listen 127.0.0.1:{port};\n    location / {{\n      proxy_pass http://replicas;\n      proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n      proxy_next_upstream off;\n      proxy_read_timeout 120s;\n      proxy_buffer_size 16k;\n      proxy_buffers 8 16k;\n    }}\n  }}\n}}\n"
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, config)?;
        let child = Command::new(&binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| DevnetError::Process(format!("starting nginx: {e}")))?;
        let mut nginx = Self {
            child: Some(child),
            dir,
            port,
        };
        nginx.wait_listening()?;
        Ok(nginx)
    }

    /// Its base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its error log so far (for a failing test's message).
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    fn wait_listening(&mut self) -> Result<(), DevnetError> {
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                return Err(DevnetError::Process(format!(
                    "nginx exited early with {status}: {}",
                    self.error_log()
                )));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Err(DevnetError::Process(format!(
            "nginx did not listen on {} within 15 s",
            self.port
        )))
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
