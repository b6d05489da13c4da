//! The off-chain rows: Pyth Hermes, RedStone's gateway and three exchange tickers, all asked
//! at once. One failed source is a row with its reason, never an error.

use oracle_sources::redstone::PRIMARY_SERVICE;
use oracle_sources::{SourceError, Sources};

use crate::Price;
use crate::asset::Asset;
use crate::row::{Details, Flag, Kind, SourceRow};
use crate::thresholds::Thresholds;

fn unavailable(row: SourceRow, reason: &str) -> SourceRow {
    row.absent(format!("not available: {reason}"))
}

fn source_failed(row: SourceRow, error: &SourceError) -> SourceRow {
    row.failed(error.to_string())
}

/// Every off-chain row of the kinds asked, in answer order (Pyth, RedStone, then Coinbase,
/// Kraken, Binance). Ages are set later against the block's timestamp ([`crate::apply_ages`]).
pub async fn off_chain_rows(
    sources: &Sources,
    asset: Asset,
    kinds: &[Kind],
    thresholds: &Thresholds,
) -> Vec<SourceRow> {
    let pyth = async {
        if kinds.contains(&Kind::PullOracleA) {
            vec![pyth(sources, asset, thresholds).await]
        } else {
            Vec::new()
        }
    };
    let redstone = async {
        if kinds.contains(&Kind::PullOracleB) {
            vec![redstone(sources, asset).await]
        } else {
            Vec::new()
        }
    };
    let cex = async {
        if kinds.contains(&Kind::Cex) {
            let (a, b, c) = futures::join!(
                coinbase(sources, asset),
                kraken(sources, asset),
                binance(sources, asset)
            );
            vec![a, b, c]
        } else {
            Vec::new()
        }
    };
    let (pyth, redstone, cex) = futures::join!(pyth, redstone, cex);
    pyth.into_iter().chain(redstone).chain(cex).collect()
}

async fn pyth(sources: &Sources, asset: Asset, thresholds: &Thresholds) -> SourceRow {
    let row = SourceRow::new(
        Kind::PullOracleA,
        "Pyth Hermes",
        format!("{}/USD", asset.symbol()),
    );
    let id = match asset.pyth_feed_id() {
        Ok(id) => id,
        Err(reason) => return unavailable(row, reason),
    };
    let answer = match sources.pyth().latest(&[id]).await {
        Ok(answer) => answer,
        Err(error) => return source_failed(row, &error),
    };
    let mut row = row;
    row.verify_url = Some(answer.url.clone());
    let Some(update) = answer.value.iter().find(|u| u.id == id) else {
        return row.failed(format!("Hermes answered without feed id {id}"));
    };
    let figure = &update.price;
    let mut row = row
        .raw("price", &figure.price)
        .raw("conf", &figure.conf)
        .raw("expo", figure.expo)
        .raw("publish_time", figure.publish_time);
    row.updated_at = Some(figure.publish_time);
    let price = match Price::parse(&figure.value) {
        Ok(price) if !price.is_zero() => price,
        Ok(_) => return row.failed("Hermes answered a price of zero"),
        Err(error) => return row.failed(format!("price {}: {error}", figure.value)),
    };
    row.price = Some(price.to_string());
    row.details.confidence = Some(figure.conf_value.clone());
    match Price::parse(&figure.conf_value)
        .ok()
        .and_then(|c| c.ratio_bps(price))
    {
        Some(bps) => {
            row.details.confidence_bps = Some(bps);
            if bps > thresholds.max_confidence_bps {
                row.flags.push(Flag::new(
                    "wide_confidence",
                    format!(
                        "conf/price is {bps} bps, wider than the {} bps threshold",
                        thresholds.max_confidence_bps
                    ),
                ));
            }
        }
        None => row.details.confidence_bps = None,
    }
    match update.prev_publish_time {
        Some(previous) if previous <= figure.publish_time => {
            row.details.observed_update_interval_seconds =
                Some(Some(figure.publish_time - previous));
        }
        Some(previous) => {
            row.details.observed_update_interval_seconds = Some(None);
            row.details.observed_update_interval_null_reason = Some(format!(
                "prev_publish_time {previous} is after publish_time {}",
                figure.publish_time
            ));
        }
        None => {
            row.details.observed_update_interval_seconds = Some(None);
            row.details.observed_update_interval_null_reason =
                Some("Hermes gave no metadata.prev_publish_time".into());
        }
    }
    row
}

async fn redstone(sources: &Sources, asset: Asset) -> SourceRow {
    let feed_id = asset.redstone_feed_id();
    let mut row = SourceRow::new(
        Kind::PullOracleB,
        format!("RedStone ({PRIMARY_SERVICE})"),
        format!("{}/USD", asset.symbol()),
    );
    let answer = match sources.redstone().latest(PRIMARY_SERVICE, feed_id).await {
        Ok(answer) => answer,
        Err(error) => return source_failed(row, &error),
    };
    row.verify_url = Some(answer.url.clone());
    row.updated_at = Some(answer.as_of);
    let value = &answer.value;
    row.details.signer_count = Some(value.values.len());
    for (signer, v) in &value.values {
        row = row.raw(&format!("signer {signer}"), v);
    }
    match Price::parse(&value.median) {
        Ok(price) if !price.is_zero() => row.price = Some(price.to_string()),
        Ok(_) => return row.failed("the signers' median is zero"),
        Err(error) => return row.failed(format!("median {}: {error}", value.median)),
    }
    row
}

fn mid(row: SourceRow, bid: &str, ask: &str) -> SourceRow {
    let mut row = row.raw("bid", bid).raw("ask", ask);
    match (Price::parse(bid), Price::parse(ask)) {
        (Ok(b), Ok(a)) if !b.is_zero() && !a.is_zero() => match b.midpoint(a) {
            Some(m) => row.price = Some(m.to_string()),
            None => return row.failed("bid and ask are too large to average"),
        },
        (Ok(_), Ok(_)) => return row.failed("bid or ask is zero (an empty book side)"),
        (Err(e), _) | (_, Err(e)) => return row.failed(format!("bid/ask: {e}")),
    }
    row
}

async fn coinbase(sources: &Sources, asset: Asset) -> SourceRow {
    let row = SourceRow::new(
        Kind::Cex,
        "Coinbase Exchange",
        format!("{}/USD", asset.symbol()),
    );
    let product = match asset.coinbase_product() {
        Ok(product) => product,
        Err(reason) => return unavailable(row, reason),
    };
    match sources.coinbase().ticker(product).await {
        Ok(answer) => {
            let mut row = mid(row, answer.value.bid.as_str(), answer.value.ask.as_str())
                .raw("last", &answer.value.price)
                .raw("time", &answer.value.time);
            row.verify_url = Some(answer.url.clone());
            // The ticker's time is its last trade's.
            row.updated_at = Some(answer.as_of);
            row
        }
        Err(error) => source_failed(row, &error),
    }
}

async fn kraken(sources: &Sources, asset: Asset) -> SourceRow {
    let row = SourceRow::new(Kind::Cex, "Kraken", format!("{}/USD", asset.symbol()));
    let pair = match asset.kraken_pair() {
        Ok(pair) => pair,
        Err(reason) => return unavailable(row, reason),
    };
    match sources.kraken().ticker(pair).await {
        Ok(answer) => {
            let mut row = mid(row, answer.value.bid.as_str(), answer.value.ask.as_str())
                .raw("last", &answer.value.last)
                .raw("pair", &answer.value.pair);
            row.verify_url = Some(answer.url);
            row
        }
        Err(error) => source_failed(row, &error),
    }
}

async fn binance(sources: &Sources, asset: Asset) -> SourceRow {
    let mut row = SourceRow::new(Kind::Cex, "Binance", format!("{}/USDT", asset.symbol()));
    row.details = Details {
        usdt_quoted: Some(true),
        ..Details::default()
    };
    let symbol = match asset.binance_symbol() {
        Ok(symbol) => symbol,
        Err(reason) => return unavailable(row, reason),
    };
    row.flags.push(Flag::new(
        "usdt_quoted",
        "quoted in USDT, not USD: shown, and left out of the median".into(),
    ));
    match sources.binance().book_ticker(symbol).await {
        Ok(answer) => {
            let mut row = mid(
                row,
                answer.value.bid_price.as_str(),
                answer.value.ask_price.as_str(),
            )
            .raw("symbol", &answer.value.symbol);
            row.verify_url = Some(answer.url);
            row
        }
        Err(error) => source_failed(row, &error),
    }
}

/// Sets every row's age against the block's timestamp and flags off-chain rows older than
/// `off_chain_max_age_seconds` (aggregator rows are judged against their observed interval
/// where they are built; DEX rows are as of the block).
pub fn apply_ages(rows: &mut [SourceRow], block_timestamp: u64, thresholds: &Thresholds) {
    for row in rows {
        let Some(updated_at) = row.updated_at else {
            continue;
        };
        let age = block_timestamp.saturating_sub(updated_at);
        row.age_seconds = Some(age);
        if !row.kind.on_chain() && row.priced() && age > thresholds.off_chain_max_age_seconds {
            row.flags.push(Flag::new(
                "stale",
                format!(
                    "age {age} s is beyond the {} s threshold for off-chain sources",
                    thresholds.off_chain_max_age_seconds
                ),
            ));
        }
    }
}
