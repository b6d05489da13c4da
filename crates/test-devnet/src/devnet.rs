//! The committed devnet state loaded into a fresh anvil, with snapshot and revert for test
//! isolation.

use std::io::Read as _;

use alloy::primitives::U256;
use alloy::providers::{DynProvider, Provider, ProviderBuilder};

use crate::addresses::Addresses;
use crate::anvil::{Anvil, AnvilOptions, DevnetError};

/// anvil running the committed state.
#[derive(Debug)]
pub struct Devnet {
    /// The process (killed on drop).
    pub anvil: Anvil,
    /// What is deployed where.
    pub addresses: Addresses,
    /// A provider on it.
    pub provider: DynProvider,
    _state: tempfile::TempPath,
}

impl Devnet {
    /// Loads `testdata/devnet/state.json.gz` into anvil on a free port, clock pinned to the
    /// build's final block + 1 s.
    pub fn load() -> Result<Self, DevnetError> {
        Self::load_as(None)
    }

    /// [`Self::load`] under chain id `chain_id` (Base's when `None`): the same contracts at the
    /// same addresses on another chain, whose EIP-712 domains (USDC's among them) differ.
    pub fn load_as(chain_id: Option<u64>) -> Result<Self, DevnetError> {
        Self::load_with(chain_id, false)
    }

    /// [`Self::load`] on an anvil without EIP-170's contract-size limit, for the tests that
    /// deploy Algebra V1 (`node::deploy_algebra_v1`), whose shipped contracts exceed it.
    pub fn load_without_code_size_limit() -> Result<Self, DevnetError> {
        Self::load_with(None, true)
    }

    fn load_with(
        chain_id: Option<u64>,
        disable_code_size_limit: bool,
    ) -> Result<Self, DevnetError> {
        let mut addresses = Addresses::committed()?;
        let state = gunzipped_state()?;
        let anvil = Anvil::spawn(AnvilOptions {
            load_state: Some(state.to_path_buf()),
            timestamp: Some(addresses.chain.load_timestamp),
            chain_id,
            disable_code_size_limit,
            ..AnvilOptions::default()
        })?;
        if let Some(chain_id) = chain_id {
            addresses.chain.chain_id = chain_id;
        }
        let url = anvil
            .rpc_url
            .parse()
            .map_err(|e| DevnetError::Rpc(format!("{e}")))?;
        let provider = ProviderBuilder::new().connect_http(url).erased();
        Ok(Self {
            anvil,
            addresses,
            provider,
            _state: state,
        })
    }

    /// Takes an `evm_snapshot`.
    pub async fn snapshot(&self) -> Result<U256, DevnetError> {
        self.provider
            .raw_request::<_, U256>("evm_snapshot".into(), ())
            .await
            .map_err(|e| DevnetError::Rpc(e.to_string()))
    }

    /// Reverts to a snapshot (which anvil then forgets), and empties the transaction pool: a
    /// transaction still queued at the revert (sent with a nonce the reverted state does not
    /// reach) would otherwise be mined later, when the nonce comes round again, into a state
    /// it was not sent for.
    pub async fn revert(&self, snapshot: U256) -> Result<(), DevnetError> {
        let reverted: bool = self
            .provider
            .raw_request("evm_revert".into(), (snapshot,))
            .await
            .map_err(|e| DevnetError::Rpc(e.to_string()))?;
        if !reverted {
            return Err(DevnetError::Rpc(format!("snapshot {snapshot} unknown")));
        }
        self.provider
            .raw_request::<_, serde_json::Value>("anvil_dropAllTransactions".into(), ())
            .await
            .map_err(|e| DevnetError::Rpc(e.to_string()))?;
        Ok(())
    }

    /// Runs `test` between a snapshot and a revert, so whatever it writes is undone.
    pub async fn isolated<F, T>(&self, test: F) -> Result<T, DevnetError>
    where
        F: AsyncFnOnce(&Self) -> T,
    {
        let snapshot = self.snapshot().await?;
        let outcome = test(self).await;
        self.revert(snapshot).await?;
        Ok(outcome)
    }
}

/// The committed state, gunzipped into a temporary file (anvil refuses gzip).
pub fn gunzipped_state() -> Result<tempfile::TempPath, DevnetError> {
    let file = tempfile::Builder::new()
        .prefix("devnet-state-")
        .suffix(".json")
        .tempfile()?;
    let path = file.into_temp_path();
    write_state_json(&path)?;
    Ok(path)
}

/// Writes the committed state, gunzipped, to `destination`.
pub fn write_state_json(destination: &std::path::Path) -> Result<(), DevnetError> {
    let compressed = std::fs::File::open(crate::devnet_dir().join("state.json.gz"))?;
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(compressed).read_to_end(&mut json)?;
    std::fs::write(destination, json)?;
    Ok(())
}
