//! Slipstream's interfaces on the devnet (issue 37): `testdata/devnet/slipstream/
//! SlipstreamInterface.sol`, our own contracts that expose Aerodrome/Velodrome Slipstream's
//! CLFactory (`getPool` by `int24` tick spacing), CLPool (`slot0` with six fields, `fee()`,
//! `ticks` with ten) and QuoterV2 (keyed by tick spacing) over the devnet's real Uniswap V3
//! pools and QuoterV2. Slipstream's own bytecode is in no registry package, so what this proves
//! is the service's reads of those interfaces, not that bytecode. Deployed by a test on its own
//! anvil (not in the committed state, so no recorded block moves).

use alloy::network::TransactionBuilder as _;
use alloy::primitives::{Address, Bytes};
use alloy::providers::{DynProvider, Provider as _};
use alloy::rpc::types::TransactionRequest;
use alloy::sol_types::{SolCall, SolValue};

use crate::DevnetError;
use crate::bindings::IDevnetSlipstreamFactory;

/// The interface's contracts as deployed, and the pool listed for each V3 pool given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlipstreamInterface {
    /// The CLFactory stand-in.
    pub factory: Address,
    /// The QuoterV2 stand-in.
    pub quoter_v2: Address,
    /// `(V3 pool, its Slipstream-interface pool)`, in the order given.
    pub pools: Vec<(Address, Address)>,
}

/// `SlipstreamInterface.json`'s creation code of one contract.
fn creation_code(name: &str) -> Result<Bytes, DevnetError> {
    let path = crate::devnet_dir().join("slipstream/SlipstreamInterface.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| DevnetError::Node(format!("{}: {e}", path.display())))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| DevnetError::Node(format!("{}: {e}", path.display())))?;
    json[name]
        .as_str()
        .and_then(|hex| hex.parse().ok())
        .ok_or_else(|| DevnetError::Node(format!("{}: no {name}", path.display())))
}

async fn send(
    provider: &DynProvider,
    tx: TransactionRequest,
    what: &str,
) -> Result<alloy::rpc::types::TransactionReceipt, DevnetError> {
    let receipt = provider
        .send_transaction(tx.gas_limit(10_000_000))
        .await
        .map_err(|e| DevnetError::Node(format!("{what}: {e}")))?
        .get_receipt()
        .await
        .map_err(|e| DevnetError::Node(format!("{what}: {e}")))?;
    if receipt.status() {
        Ok(receipt)
    } else {
        Err(DevnetError::Node(format!("{what}: reverted")))
    }
}

/// Deploys the factory and quoter from `from`, the quoter over Uniswap's `v3_quoter_v2`, and
/// lists a Slipstream-interface pool for each of `v3_pools`.
pub async fn deploy(
    provider: &DynProvider,
    from: Address,
    v3_quoter_v2: Address,
    v3_pools: &[Address],
) -> Result<SlipstreamInterface, DevnetError> {
    let deployed = |receipt: alloy::rpc::types::TransactionReceipt, what: &str| {
        receipt
            .contract_address
            .ok_or_else(|| DevnetError::Node(format!("{what}: no contract address")))
    };
    let factory_tx = TransactionRequest::default()
        .from(from)
        .with_deploy_code(creation_code("factory")?);
    let factory = deployed(send(provider, factory_tx, "factory").await?, "factory")?;
    let mut quoter_code = creation_code("quoter_v2")?.to_vec();
    quoter_code.extend((factory, v3_quoter_v2).abi_encode_params());
    let quoter_tx = TransactionRequest::default()
        .from(from)
        .with_deploy_code(quoter_code);
    let quoter_v2 = deployed(send(provider, quoter_tx, "quoter").await?, "quoter")?;
    let mut pools = Vec::new();
    for inner in v3_pools {
        let list = IDevnetSlipstreamFactory::listCall { inner: *inner };
        // The pool the listing creates, as the call answers it before it is mined.
        let answer = provider
            .call(
                TransactionRequest::default()
                    .from(from)
                    .to(factory)
                    .input(list.abi_encode().into()),
            )
            .await
            .map_err(|e| DevnetError::Node(format!("list {inner}: {e}")))?;
        let pool = IDevnetSlipstreamFactory::listCall::abi_decode_returns(&answer)
            .map_err(|e| DevnetError::Node(format!("list {inner}: {e}")))?;
        let tx = TransactionRequest::default()
            .from(from)
            .to(factory)
            .input(list.abi_encode().into());
        send(provider, tx, "list").await?;
        pools.push((*inner, pool));
    }
    Ok(SlipstreamInterface {
        factory,
        quoter_v2,
        pools,
    })
}

/// Compiles `SlipstreamInterface.sol` with the devnet builder's solc 0.8.24 (`compile.mjs
/// --check`): `Ok` with the script's report when the committed `SlipstreamInterface.json` is the
/// source's bytecode.
pub fn check_bytecode() -> Result<String, DevnetError> {
    crate::node::ensure_packages(&crate::node::devnet_builder())?;
    crate::node::run_report(
        std::process::Command::new("node")
            .arg(crate::devnet_dir().join("slipstream/compile.mjs"))
            .arg("--check"),
        "compile.mjs",
        "compile.mjs --check",
    )
}
