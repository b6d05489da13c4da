//! An anvil process on 127.0.0.1 with chain id 8453, killed when dropped (unless detached).

use std::io::Read as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chain id of the devnet: Base's, so USDC's EIP-712 domain separator equals mainnet's.
pub const CHAIN_ID: u64 = 8453;

/// Why the devnet could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DevnetError {
    /// The npm-installed binary is absent.
    #[error(
        "anvil is not installed at {0}; `cargo xtask ci` or `cargo xtask devnet start` installs it"
    )]
    NotInstalled(PathBuf),
    /// Starting or talking to the process failed.
    #[error("anvil: {0}")]
    Process(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// `addresses.json` is not what this crate expects.
    #[error("addresses.json: {0}")]
    Addresses(String),
    /// A JSON-RPC call failed.
    #[error("rpc: {0}")]
    Rpc(String),
    /// node, npm or one of the Node scripts failed.
    #[error("node: {0}")]
    Node(String),
}

/// How to start anvil.
#[derive(Debug, Clone, Default)]
pub struct AnvilOptions {
    /// Port; a free one when `None`.
    pub port: Option<u16>,
    /// State file to load (plain JSON; anvil refuses gzip).
    pub load_state: Option<PathBuf>,
    /// Timestamp of the next block (pins the clock after a load).
    pub timestamp: Option<u64>,
    /// Where stdout and stderr go; discarded when `None`.
    pub log: Option<PathBuf>,
    /// Chain id; [`CHAIN_ID`] (Base's) when `None`. Another one makes a second chain of the
    /// same state (the payment tests' other network).
    pub chain_id: Option<u64>,
    /// Lift EIP-170's contract-size limit (`--disable-code-size-limit`): Algebra V1's pool
    /// deployer and factory, as `@cryptoalgebra/core` 2.0.0 ships them, are larger.
    pub disable_code_size_limit: bool,
}

/// A running anvil.
#[derive(Debug)]
pub struct Anvil {
    child: Option<Child>,
    /// Its JSON-RPC URL.
    pub rpc_url: String,
    /// Its port.
    pub port: u16,
}

impl Anvil {
    /// Starts anvil and waits until it accepts connections.
    pub fn spawn(options: AnvilOptions) -> Result<Self, DevnetError> {
        let binary = crate::anvil_binary();
        if !binary.exists() {
            return Err(DevnetError::NotInstalled(binary));
        }
        let port = match options.port {
            Some(port) => port,
            None => free_port()?,
        };
        let mut command = Command::new(&binary);
        command
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--chain-id",
                &options.chain_id.unwrap_or(CHAIN_ID).to_string(),
            ])
            // anvil moves states older than its in-memory window to a directory under
            // ~/.foundry/anvil/tmp and removes it only on a graceful exit; a killed test devnet
            // left ~2 GB there per run. Tests and the demo read recent blocks only.
            .args(["--max-persisted-states", "0"])
            .stdin(Stdio::null());
        if let Some(state) = &options.load_state {
            command.arg("--load-state").arg(state);
        }
        if options.disable_code_size_limit {
            command.arg("--disable-code-size-limit");
        }
        if let Some(timestamp) = options.timestamp {
            command.args(["--timestamp", &timestamp.to_string()]);
        }
        match &options.log {
            Some(log) => {
                let file = std::fs::File::create(log)?;
                command.stdout(file.try_clone()?).stderr(file);
            }
            None => {
                command.stdout(Stdio::null()).stderr(Stdio::null());
            }
        }
        let child = command
            .spawn()
            .map_err(|e| DevnetError::Process(format!("starting {}: {e}", binary.display())))?;
        let mut anvil = Self {
            child: Some(child),
            rpc_url: format!("http://127.0.0.1:{port}"),
            port,
        };
        anvil.wait_listening()?;
        wait_answering(port)?;
        Ok(anvil)
    }

    fn wait_listening(&mut self) -> Result<(), DevnetError> {
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                return Err(DevnetError::Process(format!(
                    "exited early with {status}; is port {} in use?",
                    self.port
                )));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Err(DevnetError::Process(format!(
            "did not listen on {} within 30 s",
            self.port
        )))
    }

    /// Leaves anvil running after this value is dropped; returns its pid.
    pub fn detach(mut self) -> Option<u32> {
        self.child.take().map(|child| child.id())
    }
}

impl Drop for Anvil {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits until anvil answers JSON-RPC, not merely accepts connections: while it loads a state
/// it can accept and then drop the first requests (seen under parallel test load).
fn wait_answering(port: u16) -> Result<(), DevnetError> {
    use std::io::Write as _;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut last_error = String::new();
    while std::time::Instant::now() < deadline {
        let attempt = (|| -> std::io::Result<String> {
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
            stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
            stream.write_all(request.as_bytes())?;
            let mut answer = String::new();
            stream.read_to_string(&mut answer)?;
            Ok(answer)
        })();
        match attempt {
            Ok(answer) if answer.contains("\"result\"") => return Ok(()),
            Ok(answer) => last_error = answer.lines().next().unwrap_or_default().to_owned(),
            Err(e) => last_error = e.to_string(),
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    Err(DevnetError::Rpc(format!(
        "anvil on port {port} never answered eth_blockNumber: {last_error}"
    )))
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> Result<u16, DevnetError> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}
