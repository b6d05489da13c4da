//! The gas figures assumed and the assumptions of a quote, in the answer's words.

use chain_read::ChainInfo;
use dex_math::gas::GasModel;
use dex_route::GasConversion;

use super::answer::AssumedGasOverhead;
use super::word::TokenBook;
use crate::answer::show;

pub(super) fn assumed_gas_overhead(model: &GasModel) -> AssumedGasOverhead {
    AssumedGasOverhead {
        router_base_gas_per_route: model.router_base,
        concentrated_liquidity_hop: "QuoterV2 gasEstimate of the hop, measured at the block".to_owned(),
        concentrated_liquidity_hop_unmeasured_gas: model.cl_unmeasured_hop,
        constant_product_hop_gas: model.constant_product_hop,
        solidly_volatile_hop_gas: model.solidly_volatile_hop,
        solidly_stable_hop_gas: model.solidly_stable_hop,
        source: "constants measured with eth_estimateGas on the service's devnet routers (Uniswap SwapRouter and Router02, Aerodrome Router), rounded; ranges in docs/decisions.md".to_owned(),
    }
}

pub(super) fn assumptions(
    block: u64,
    lens: bool,
    conversion: &GasConversion,
    l1_null_reason: &Option<String>,
    include_multihop: bool,
    info: &ChainInfo,
    book: &TokenBook,
) -> Vec<String> {
    let read = if lens {
        format!(
            "Every contract read is made at block {block} in one eth_call of the service's quote lens (its code placed at an unused address by a state override for that call only): it runs the calls the Multicall3 batches would send, in their order, taking pool addresses and amounts from the earlier answers; eth_gasPrice is the node's answer in the same request, which a block number cannot pin."
        )
    } else {
        format!(
            "Every contract read is made at block {block} (Multicall3 aggregate3; the block is pinned by the first batch); eth_gasPrice is the node's answer at the time of that batch, which a block number cannot pin."
        )
    };
    let mut list = vec![
        read,
        "amount_out of every leg is exact at that block: QuoterV2 for concentrated-liquidity pools, the pool's own getAmountOut for Solidly pools, the Uniswap V2 formula on the reserves for constant-product pairs.".to_owned(),
        "gas_units_estimate, gas_cost_*_estimate and net_amount_out_estimate are estimates: the router base and the constant-product and Solidly hop figures are constants (assumed_gas_overhead); only concentrated-liquidity hops are measured.".to_owned(),
        "net_amount_out_estimate = amount_out − gas cost in the output token; best_by_net ranks by it, best_by_gross by amount_out.".to_owned(),
        "price_impact_bps compares a route's output with the product of its pools' mid prices at the block and includes the pools' fees.".to_owned(),
        "amount_out_min = ⌊amount_out × (10000 − slippage_bps) / 10000⌋ of the reference route: arithmetic on the caller's tolerance, not a recommendation.".to_owned(),
        "Nothing is executed or simulated in a transaction; the next block can differ.".to_owned(),
    ];
    match conversion {
        GasConversion::Reference { .. } => list.push("Gas cost is priced in the output token at the rate of the best direct quote of one whole wrapped native token at the block (gas_cost_conversion), linearly.".to_owned()),
        GasConversion::Identity { .. } => list.push("The output token is the wrapped native token, so gas cost needs no conversion.".to_owned()),
        GasConversion::Unavailable { .. } => list.push("Gas could not be priced in the output token (gas_cost_conversion_null_reason), so net outputs are null.".to_owned()),
    }
    match l1_null_reason {
        None => list.push("The L1 data fee is GasPriceOracle getL1Fee of a representative unsigned EIP-1559 SwapRouter02 exactInputSingle transaction of the pair and amount (an estimate; its fee fields are a 0.01 gwei stand-in), added to every route alike.".to_owned()),
        Some(_) => list.push("No L1 data fee is included in gas costs (l1_data_fee_null_reason).".to_owned()),
    }
    if let Some(chain_read::Dex {
        contracts: chain_read::DexContracts::PoolManager { shapes, .. },
        ..
    }) = info.dex(chain_read::DexId::UniswapV4)
    {
        list.push(format!("Uniswap V4 pools are found by probing {} pool shapes (fee, tick spacing, hooks; the registry's list) with StateView getSlot0 at the block, for each pair against its two tokens and, where one is the wrapped native token, against native ETH in its place (such a leg says native_eth: a swap through it unwraps, or sends native ETH); {} Every V4 leg is quoted by V4Quoter, which runs the swap in the PoolManager with the pool's hooks, so a hook that changes the output is in amount_out (hooks_in_quote); V4 hops are measured by V4Quoter's gasEstimate. Routes are ranked by output, never by fee tier or by the liquidity a pool claims.", shapes.len(), super::v4_index::other_shapes(info)));
    }
    let slipstream: Vec<String> = info
        .dexes()
        .filter(|dex| dex.kind() == chain_read::DexKind::Slipstream)
        .map(|dex| dex.id.to_string())
        .collect();
    if !slipstream.is_empty() {
        list.push(format!("{} (Slipstream) pools are found by asking each of the DEX's CL factories for each registry tick spacing, quoted by the QuoterV2 deployed with the pool's factory, and their fee_tier_ppm is the pool's own fee() at the block. Slipstream's bytecode is in no registry package: this kind is checked against its interface on the service's devnet (its factory, pool and quoter calls, over real Uniswap V3 pools), not against its bytecode.", slipstream.join(", ")));
    }
    let algebra: Vec<String> = info
        .dexes()
        .filter(|dex| dex.kind() == chain_read::DexKind::AlgebraIntegral)
        .map(|dex| dex.id.to_string())
        .collect();
    if !algebra.is_empty() {
        list.push(format!("{} (Algebra Integral) pools are found with the factory's poolByPair (one base pool per pair; custom pools of other deployers are not seen), quoted by Algebra's QuoterV2, and their fee_tier_ppm is the fee in the pool's globalState at the block (a dynamic-fee plugin may charge a swap another fee; the quote's amount is the swap's own). Checked to the wei against Algebra Integral's own bytecode on the service's devnet.", algebra.join(", ")));
    }
    let algebra_v1: Vec<String> = info
        .dexes()
        .filter(|dex| dex.kind() == chain_read::DexKind::AlgebraV1)
        .map(|dex| dex.id.to_string())
        .collect();
    if !algebra_v1.is_empty() {
        list.push(format!("{} (Algebra V1) pools are found with the factory's poolByPair (one pool per pair), quoted by the Quoter, whose answer carries the fee the swap paid (source algebra_quoter); fee_tier_ppm is the adaptive fee in the pool's globalState at the block, which the first swap of a later block recomputes from volatility and volume, so a swap in a later block may pay another fee than the quote. The Quoter gives no gas measurement: these hops are gassed by the concentrated-liquidity figure. Checked to the wei against Algebra V1's own bytecode on the service's devnet.", algebra_v1.join(", ")));
    }
    if include_multihop {
        let hops: Vec<String> = info
            .hop_tokens()
            .iter()
            .map(|token| match book.reference(*token).symbol {
                Some(symbol) => format!("{symbol} ({})", show(*token)),
                None => show(*token),
            })
            .collect();
        list.push(format!("Two-hop routes go through one of {}; each second leg is quoted with the output of the best first leg of each pool type.", hops.join(", ")));
    }
    list
}
