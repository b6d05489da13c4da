//! An assessment in the answer's words: the pool, the tokens with their USD prices, the
//! attacker's optimum and its gas, the chain's mempool, the assumptions.

use alloy::primitives::{Address, U256};
use chain_read::dex::PoolKey;
use dex_route::RouteError;
use dex_route::liquidity::UsdPrice;
use dex_route::mev::{Assessment, MevPool, PoolChoice, positive};

use super::answer::{AssessedPool, DirectQuote, MevRiskAnswer, PublicMempool, TradeToken};
use super::attack::{attack_gas, attacker, pays_sentence};
use super::history::sandwich_history;
use super::mitigation::mitigations;
use crate::answer::{amount, fee_bps, pool_ref, show, usd_text};
use crate::requests::Chain;
use crate::wording;

/// USD figures of one assessment: its prices, USDC's decimals and the trade's tokens'.
pub(super) struct Usd<'a> {
    pub(super) read: &'a MevPool,
    usdc: Option<u8>,
    pub(super) decimals_in: Option<u8>,
    pub(super) decimals_out: Option<u8>,
}

impl Usd<'_> {
    /// `raw` units at `price` as dollars, rounded down or (`up`) up to the cent.
    pub(super) fn text(
        &self,
        price: &Result<UsdPrice, RouteError>,
        raw: U256,
        up: bool,
    ) -> Result<String, String> {
        let price = price.as_ref().map_err(ToString::to_string)?;
        let usdc = self
            .usdc
            .ok_or_else(|| "USDC's decimals() did not answer".to_owned())?;
        let mut value = price.value(raw);
        if up && !raw.is_zero() {
            value += U256::from(1u8);
        }
        Ok(usd_text(value, usdc, up))
    }
}

fn trade_token(
    read: &MevPool,
    token: Address,
    price: &Result<UsdPrice, RouteError>,
    decimals: u8,
) -> TradeToken {
    let meta = read.tokens.iter().find(|t| t.address == token);
    let (price_usd, price_usd_source, reason) = wording::usd_price(
        price,
        read.usdc_decimals,
        decimals,
        ("the assessed pool's", read.block.number, true),
    );
    TradeToken {
        address: show(token),
        symbol: meta.and_then(|m| m.symbol.clone().ok()),
        decimals,
        price_usd,
        price_usd_source,
        price_usd_null_reason: reason,
    }
}

/// The chain's pending-pool facts, each with the public documentation it rests on.
pub fn public_mempool(chain: Chain) -> PublicMempool {
    let (exists, statement, source) = match chain {
        Chain::Ethereum => (
            true,
            "Ethereum has a public peer-to-peer mempool: a transaction sent to a public RPC is visible to searchers before inclusion, and builders order blocks, so a classic sandwich is possible.",
            "ethereum.org, 'Maximal extractable value (MEV)' (ethereum.org/en/developers/docs/mev/)",
        ),
        Chain::Base | Chain::Optimism => (
            false,
            "OP-stack chain: transactions go to a single sequencer whose pending pool is private, ordered by priority fee; there is no public mempool to watch, so a match in the history is a pattern match, not a confirmed mempool sandwich.",
            "Optimism docs, 'Transaction flow' / sequencer (docs.optimism.io)",
        ),
        Chain::Arbitrum => (
            false,
            "Arbitrum's sequencer orders first-come first-served with a Timeboost express lane auction; its pending pool is not public, so a match in the history is a pattern match, not a confirmed mempool sandwich.",
            "Arbitrum docs, 'Sequencer' and 'Timeboost' (docs.arbitrum.io)",
        ),
        Chain::Polygon => (
            true,
            "Polygon PoS has a public mempool on its validators (Bor, a geth fork): pending transactions are visible before inclusion.",
            "Polygon docs, PoS architecture (docs.polygon.technology)",
        ),
    };
    PublicMempool {
        exists,
        statement: statement.to_owned(),
        source: source.to_owned(),
    }
}

fn assessed_pool(read: &MevPool, d_out: Option<u8>) -> AssessedPool {
    let (chosen_by, why) = match read.choice {
        PoolChoice::BestDirectQuote => (
            "best_direct_quote",
            format!(
                "the best gross direct quote for the whole amount at block {} among {} direct quotes (what /dex/quote ranks first among direct routes)",
                read.block.number,
                read.direct_quotes.len()
            ),
        ),
        PoolChoice::Named => (
            "route",
            "named by the caller; its factory returns it for the pair".to_owned(),
        ),
        PoolChoice::BestModelledQuote => (
            "best_modelled_direct_quote",
            format!(
                "the best gross direct quote for the whole amount at block {} among the pools whose kind the sandwich maths models; a better direct quote came from a Uniswap V4 pool whose hooks run in its swaps, which is quoted but not modelled ({} direct quotes compared)",
                read.block.number,
                read.direct_quotes.len()
            ),
        ),
    };
    AssessedPool {
        address: pool_ref(&read.pool),
        dex: read.pool.dex.as_str().to_owned(),
        pool_type: read.pool.key.kind().as_str().to_owned(),
        stable: read.pool.key.stable(),
        fee_tier_ppm: match read.pool.key {
            PoolKey::Concentrated { fee, .. } => Some(fee),
            _ => None,
        },
        fee_bps: fee_bps(&read.state, read.pool.key),
        chosen_by: chosen_by.to_owned(),
        why,
        direct_quotes_compared: read
            .direct_quotes
            .iter()
            .map(|leg| DirectQuote {
                pool: pool_ref(&leg.pool),
                dex: leg.pool.dex.as_str().to_owned(),
                pool_type: leg.pool.key.kind().as_str().to_owned(),
                stable: leg.pool.key.stable(),
                amount_out: amount(leg.amount_out, d_out),
                chosen: leg.pool.address == read.pool.address,
            })
            .collect(),
    }
}

fn assumptions(read: &MevPool) -> Vec<String> {
    let quote_source = read.quote.source.as_str();
    let mut assumptions = vec![
        format!(
            "Every state read was made at block {} in {} sequential round trips; the history scan reads logs up to that block.",
            read.block.number, read.sequential_round_trips
        ),
        "The attacker's figures are an estimate: a searcher front-runs with the profit-maximising amount the caller's tolerance permits and back-runs by selling everything it bought, in the same block, with nothing else trading on the pool in between.".to_owned(),
        "Profit is gross (before gas and any builder payment); gas is two transactions at eth_gasPrice of the block with the devnet-measured gas units printed, plus the L1 data fee of a representative swap transaction on OP-stack chains.".to_owned(),
        "USD is the chain's USDC at 1 USD, through the price sources printed with each token.".to_owned(),
        format!(
            "The model's unattacked output is compared with the official quote ({quote_source}) at the same block: model_error_bps."
        ),
        "Splits assume each part trades on the same pool state (separate blocks, arbitrage restoring the price in between).".to_owned(),
    ];
    if let (Some(window), PoolKey::V4 { hooks, .. }) = (&read.ticks, read.pool.key) {
        assumptions.push(format!(
            "Uniswap V4: the simulation uses the initialized ticks of StateView getTickBitmap words {}..{} ({} words, {} ticks, each tick's liquidityNet from getTickLiquidity), as many words as the cap allows in the trade's direction and one on the other side (V4Quoter gives no price after the trade); no initialized tick beyond them is assumed (attacker.ticks_read.attack_stays_inside says whether the attack stays inside). {} so its swaps follow the V3 swap maths, each direction at its fee: the LP fee read, combined with that direction's protocol fee (v4-core ProtocolFeeLibrary.calculateSwapFee) when the pool has one.",
            window.words.0,
            window.words.1,
            i32::from(window.words.1) - i32::from(window.words.0) + 1,
            window.initialized_ticks,
            v4_hooks_words(hooks),
        ));
    } else if let Some(window) = &read.ticks {
        assumptions.push(format!(
            "Concentrated liquidity: the simulation uses the initialized ticks of TickLens words {}..{} ({} words, {} ticks) from the current price through the price after the trade plus twice the tolerance and {} ticks; no initialized tick beyond them is assumed (attacker.ticks_read.attack_stays_inside says whether the attack stays inside).",
            window.words.0,
            window.words.1,
            i32::from(window.words.1) - i32::from(window.words.0) + 1,
            window.initialized_ticks,
            dex_route::mev::TICK_MARGIN
        ));
    }
    if let PoolKey::Balancer { .. } = read.pool.key {
        assumptions.push("Balancer V2: the simulation is the pool's own swap maths (dex-math's port of the weighted or composable stable pool, equal to the Vault's queryBatchSwap to the wei on the devnet) on the Vault's balances at the block; each swap's whole amount in stays in the pool's balance (the fee included), as the Vault books it. There is no closed form on these curves: the front-run bound and the optimum are searched. A front-run or back-run the pool refuses (a dust swap that buys nothing) counts as no sandwich or as returning nothing.".to_owned());
    }
    assumptions
}

/// The assessment as the answer.
pub(super) fn word(chain: Chain, slippage_bps: u32, a: &Assessment) -> MevRiskAnswer {
    let read = &a.read;
    let (token_in, token_out) = (read.quote.token_in, read.quote.token_out);
    let usd = Usd {
        read,
        usdc: read.usdc_decimals,
        decimals_in: dex_route::decimals_of(&read.tokens, token_in),
        decimals_out: dex_route::decimals_of(&read.tokens, token_out),
    };
    let (d_in, d_out) = (usd.decimals_in, usd.decimals_out);
    let (attack_gas, cost_usd) = attack_gas(a, &usd, chain);
    let profit_usd = usd.text(&read.usd_in, positive(a.attack.optimum.profit), false);
    let attack_pays_sentence = pays_sentence(a, &attack_gas, &profit_usd, cost_usd);
    let max_loss_usd = usd.text(&read.usd_out, a.max_loss, false);
    let mempool = public_mempool(chain);
    let label = if mempool.exists {
        "sandwiches (pattern matches on a chain with a public mempool)"
    } else {
        "pattern matches (not confirmed mempool sandwiches: the chain has no public mempool)"
    };
    MevRiskAnswer {
        chain,
        block_number: read.block.number,
        block_timestamp: read.block.timestamp,
        pool: assessed_pool(read, d_out),
        token_in: trade_token(read, token_in, &read.usd_in, d_in.unwrap_or(0)),
        token_out: trade_token(read, token_out, &read.usd_out, d_out.unwrap_or(0)),
        amount_in: amount(a.amount_in, d_in),
        slippage_bps,
        quoted_out: amount(read.quote.amount_out, d_out),
        quote_source: read.quote.source.as_str().to_owned(),
        amount_out_min: amount(a.amount_out_min, d_out),
        max_loss: amount(a.max_loss, d_out),
        max_loss_usd: max_loss_usd.as_ref().ok().cloned(),
        max_loss_usd_null_reason: max_loss_usd.err(),
        attacker: attacker(a, &usd, &profit_usd),
        attack_gas,
        attack_pays: a.attack_pays,
        attack_pays_sentence,
        model_error_bps: a.model_error_bps,
        model_amount_out: amount(a.model_out, d_out),
        recent_sandwiches_on_pool: sandwich_history(&a.history, read, label),
        mitigations: mitigations(a, &usd, chain, mempool.exists),
        public_mempool: mempool,
        rpc_round_trips: read.sequential_round_trips,
        assumptions: {
            let mut lines = assumptions(read);
            lines.extend(native_ether_line(a));
            lines
        },
    }
}

/// What a V4 pool's hooks do in a swap, in words (only pools whose hooks run no code in a
/// swap are modelled).
fn v4_hooks_words(hooks: alloy::primitives::Address) -> String {
    use chain_read::dex::uniswap_v4::hook_flags;
    if hooks.is_zero() {
        return "The pool has no hooks,".to_owned();
    }
    let names = hook_flags::names(hook_flags::of(hooks));
    format!(
        "The pool's hooks {} hold the permissions {} (the low 14 bits of their address, v4-core Hooks.sol), none of which runs in a swap (beforeSwap, afterSwap and their return deltas are the ones that do),",
        crate::answer::show(hooks),
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    )
}

/// What the answer assumes when a side of the request was native ether.
fn native_ether_line(a: &Assessment) -> Option<String> {
    let side = a.native_ether?;
    let read = &a.read;
    let wrapped = match side {
        dex_route::quote::Side::TokenIn => read.quote.token_in,
        dex_route::quote::Side::TokenOut => read.quote.pool.other(read.quote.token_in),
    };
    let symbol = read
        .tokens
        .iter()
        .find(|t| t.address == wrapped)
        .and_then(|t| t.symbol.as_deref().ok())
        .unwrap_or("?");
    let through = match read.quote.pool.key {
        PoolKey::V4 {
            native: Some(_), ..
        } => {
            "the pool assessed trades native ether itself (a Uniswap V4 pool against the zero address), so the swap needs no wrap"
        }
        _ => {
            "the pool assessed holds the wrapped token, so the swap needs a wrap (or unwrap) beside it, which the assessment does not include"
        }
    };
    Some(format!(
        "{} is native ether (the zero address): it is read as the wrapped native token {} ({symbol}), whose pools and the Uniswap V4 pools against native ether carry it; {through}.",
        side.field(),
        show(wrapped),
    ))
}
