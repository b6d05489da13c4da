//! What a `/dex/quote` answer says of the Uniswap V4 pools found from the PoolManager's
//! `Initialize` events: how far the chain's index has read, and which routes' pools only the
//! events named.

use chain_read::ChainInfo;
use chain_read::dex::PoolKey;
use chain_read::dex::uniswap_v4::DYNAMIC_FEE_FLAG;
use dex_route::{Route, v4_pool_found_by_event};

use crate::answer::show;

/// How V4 pools of a shape the registry does not list are found: the end of the V4 discovery
/// assumption.
pub(super) fn other_shapes(info: &ChainInfo) -> String {
    let Some(index) = info.v4_index() else {
        return "a V4 pool of another shape is not seen.".to_owned();
    };
    let (config, status) = (index.config(), index.status());
    let caps = format!(
        "at most {} blocks an eth_getLogs, in the same JSON-RPC batch as a read's first request, so it costs no round trip; at most {} such shapes a pair, the earliest initialised",
        config.max_blocks_per_refresh, config.max_shapes_per_pair
    );
    match status.read_to {
        None => format!(
            "pools of other shapes are found from the PoolManager's Initialize events, read forward from block {} ({caps}), and none has been read yet: a V4 pool of another shape is not seen yet.",
            config.start_block
        ),
        Some(read_to) => {
            let behind = match status.head {
                Some(head) if head > read_to => format!(
                    "; the chain is at block {head} at least, so a pool initialised after block {read_to} is not seen yet"
                ),
                _ => String::new(),
            };
            let full = match status.dropped {
                0 => String::new(),
                dropped => format!(
                    "; the index is full ({} pools kept) and {dropped} later pools are not kept",
                    status.pools
                ),
            };
            format!(
                "pools of other shapes are found from the PoolManager's Initialize events, read from block {} to block {read_to} ({caps}; the pools of the range read beside this request are used from the next request on){behind}{full}.",
                config.start_block
            )
        }
    }
}

/// The routes' V4 pools that only the `Initialize` events named, listed with their keys.
pub(super) fn found_by_events(info: &ChainInfo, routes: &[Route]) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    for leg in routes.iter().flat_map(|route| &route.legs) {
        let PoolKey::V4 {
            fee,
            tick_spacing,
            hooks,
            native,
            id,
        } = leg.pool.key
        else {
            continue;
        };
        if !v4_pool_found_by_event(info, &leg.pool) {
            continue;
        }
        let fee = match fee {
            DYNAMIC_FEE_FLAG => "dynamic fee".to_owned(),
            fee => format!("fee {fee} ppm"),
        };
        let hooks = match hooks.is_zero() {
            true => "no hooks".to_owned(),
            false => format!("hooks {}", show(hooks)),
        };
        let native = if native.is_some() { ", native ETH" } else { "" };
        let text = format!("PoolId {id} ({fee}, tick spacing {tick_spacing}, {hooks}{native})");
        if !found.contains(&text) {
            found.push(text);
        }
    }
    (!found.is_empty()).then(|| {
        format!(
            "These Uniswap V4 pools were found from the PoolManager's Initialize events only (no shape the registry probes is theirs): {}.",
            found.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use chain_read::dex::v4_index::V4IndexConfig;
    use chain_read::{Chain, Registry};

    use super::*;

    #[test]
    fn the_assumption_says_how_far_the_index_has_read() {
        let registry = Registry::builtin().with_v4_index(
            Chain::Base,
            Some(V4IndexConfig {
                max_blocks_per_refresh: 100,
                ..V4IndexConfig::from_block(1_000)
            }),
        );
        let info = registry.chain(Chain::Base);
        let index = info.v4_index().expect("an index");
        assert!(other_shapes(info).contains("none has been read yet"));
        index.observe_head(1_500);
        index.due().expect("due").apply(Ok(Vec::new()));
        let said = other_shapes(info);
        assert!(said.contains("from block 1000 to block 1099"), "{said}");
        assert!(
            said.contains("at least, so a pool initialised after block 1099"),
            "{said}"
        );
        let none = Registry::builtin().with_v4_index(Chain::Base, None);
        assert_eq!(
            other_shapes(none.chain(Chain::Base)),
            "a V4 pool of another shape is not seen."
        );
    }

    fn v4_leg(shape: chain_read::dex::uniswap_v4::V4Shape) -> Route {
        use alloy::primitives::{Address, U256, address};
        use chain_read::dex::Pool;
        use chain_read::dex::uniswap_v4::pool_id;
        let (weth, usdc) = (
            address!("4200000000000000000000000000000000000006"),
            address!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
        );
        let id = pool_id(&shape.key(weth, usdc));
        Route {
            legs: vec![dex_route::Leg {
                pool: Pool {
                    dex: chain_read::DexId::UniswapV4,
                    address: Address::from_slice(&id[12..]),
                    token0: weth,
                    token1: usdc,
                    key: PoolKey::V4 {
                        fee: shape.fee,
                        tick_spacing: shape.tick_spacing,
                        hooks: shape.hooks,
                        native: None,
                        id,
                    },
                },
                token_in: weth,
                token_out: usdc,
                amount_in: U256::from(1u8),
                amount_out: U256::from(1u8),
                source: dex_route::QuoteSource::V4Quoter,
                quoter: None,
                gas_estimate: None,
                state: None,
            }],
        }
    }

    #[test]
    fn only_pools_of_shapes_the_registry_does_not_probe_are_named_as_found_by_events() {
        use chain_read::dex::uniswap_v4::V4Shape;
        let registry = Registry::builtin();
        let info = registry.chain(Chain::Base);
        assert_eq!(
            found_by_events(info, &[v4_leg(V4Shape::plain(500, 10))]),
            None,
            "a standard shape"
        );
        let said = found_by_events(
            info,
            &[
                v4_leg(V4Shape::plain(1234, 7)),
                v4_leg(V4Shape::plain(500, 10)),
            ],
        )
        .expect("named");
        assert!(
            said.contains("(fee 1234 ppm, tick spacing 7, no hooks)")
                && said.matches("PoolId").count() == 1,
            "{said}"
        );
    }
}
