//! The aggregator feed's row: the latest round at the block, the previous round's interval,
//! staleness and the L2 sequencer's status.

use super::*;

/// Flags of the aggregator row from the sequencer uptime feed's `latestRoundData`: answer 1
/// is down; up but changed less than `grace_seconds` before the block is the grace period.
pub fn sequencer_flags(
    answer: &str,
    started_at: u64,
    block_timestamp: u64,
    grace_seconds: u64,
) -> Vec<Flag> {
    let since = block_timestamp.saturating_sub(started_at);
    if answer != "0" {
        return vec![Flag::new(
            "sequencer_down",
            format!("the sequencer uptime feed answers {answer} (0 is up) since {started_at}"),
        )];
    }
    if since < grace_seconds {
        return vec![Flag::new(
            "sequencer_grace_period",
            format!(
                "the sequencer came back up {since} s before the block, inside the {grace_seconds} s grace period"
            ),
        )];
    }
    Vec::new()
}

#[allow(clippy::too_many_arguments)]
pub(super) fn aggregator_row(
    chain: &ChainInfo,
    pair: &str,
    feed: Option<&FeedEntry>,
    head: Option<&FeedHead>,
    previous: Option<(u128, Result<Round, CallFailure>)>,
    sequencer: Option<&(Address, FeedHead)>,
    block_timestamp: u64,
    thresholds: &Thresholds,
    expected_descriptions: &BTreeMap<String, String>,
    notes: &mut Vec<String>,
) -> SourceRow {
    let mut row = SourceRow::new(Kind::Aggregator, format!("Chainlink {pair} feed"), pair);
    let (Some(feed), Some(head)) = (feed, head) else {
        return row.absent(format!(
            "not available on {}: no verified {pair} feed address (the only built-in feeds are addresses published in aave-address-book; configure contracts.chainlink.\"{pair}\" to read another)",
            chain.chain()
        ));
    };
    row.verify_url = Some(explorer_url(chain.chain(), feed.address));
    row.details.feed_address = Some(feed.address.to_checksum(None));
    row.details.feed_address_source = Some(match feed.origin {
        FeedOrigin::Builtin { citation } => format!("built in ({citation})"),
        FeedOrigin::Configured => "configured (contracts.chainlink)".to_owned(),
    });
    row.details.heartbeat_seconds = Some(None);
    row.details.deviation_threshold = Some(None);
    row.details.heartbeat_null_reason = Some("the heartbeat and deviation threshold are set off chain by the feed's operator and cannot be read from the contract; the observed interval between the last two rounds is given instead".into());
    let description = match &head.description {
        Ok(description) => description.clone(),
        Err(failure) => {
            return row.failed(format!(
                "description() failed ({failure}): the feed is refused"
            ));
        }
    };
    row.details.description = Some(description.clone());
    let accepted = match expected_descriptions.get(pair) {
        Some(expected) => {
            let ok = description.trim() == expected.trim();
            if ok {
                notes.push(format!(
                    "The {pair} feed's description() is {description:?}, accepted because the configuration names that text for {pair} (crosscheck.feed_descriptions); a production feed describes itself as \"{}\".",
                    pair.replace('/', " / ")
                ));
            }
            ok
        }
        None => oracle::description_names(&description, pair),
    };
    if !accepted {
        return row.failed(format!(
            "description() is {description:?}, which does not name {pair}: the feed is refused"
        ));
    }
    let decimals = match &head.decimals {
        Ok(decimals) => *decimals,
        Err(failure) => return row.failed(format!("decimals() failed: {failure}")),
    };
    let latest = match &head.latest {
        Ok(latest) => *latest,
        Err(failure) => return row.failed(format!("latestRoundData() failed: {failure}")),
    };
    row = row
        .raw("answer", latest.answer)
        .raw("decimals", decimals)
        .raw("round_id", latest.round_id)
        .raw("answered_in_round", latest.answered_in_round)
        .raw("started_at", latest.started_at)
        .raw("updated_at", latest.updated_at);
    row.updated_at = Some(latest.updated_at);
    let age = block_timestamp.saturating_sub(latest.updated_at);
    row.age_seconds = Some(age);
    if latest.answer.is_negative() || latest.answer.is_zero() {
        return row.failed(format!("the answer {} is not positive", latest.answer));
    }
    match Price::scaled(latest.answer.unsigned_abs(), -i32::from(decimals)) {
        Ok(price) => row.price = Some(price.to_string()),
        Err(error) => return row.failed(format!("answer × 10^-{decimals}: {error}")),
    }
    let interval = match previous {
        None => Err(format!(
            "round {} is round {} of phase {}: the round before lives in the previous phase's aggregator, so no interval is read",
            latest.round_id,
            latest.aggregator_round_id(),
            latest.phase_id()
        )),
        Some((id, Err(failure))) => Err(format!("getRoundData({id}) failed: {failure}")),
        Some((id, Ok(round))) if round.updated_at == 0 => Err(format!(
            "getRoundData({id}) answered no update time (no such round)"
        )),
        Some((id, Ok(round))) if round.updated_at > latest.updated_at => Err(format!(
            "getRoundData({id}) is newer ({}) than the latest round ({})",
            round.updated_at, latest.updated_at
        )),
        Some((_, Ok(round))) => Ok(latest.updated_at - round.updated_at),
    };
    match interval {
        Ok(interval) => {
            row.details.observed_update_interval_seconds = Some(Some(interval));
            #[allow(clippy::cast_precision_loss)] // seconds, far below 2^53
            let limit = thresholds.staleness_multiple * interval as f64;
            #[allow(clippy::cast_precision_loss)]
            if interval > 0 && age as f64 > limit {
                row.flags.push(Flag::new(
                    "stale",
                    format!(
                        "age {age} s is more than {} × the observed update interval {interval} s",
                        thresholds.staleness_multiple
                    ),
                ));
            }
        }
        Err(reason) => {
            row.details.observed_update_interval_seconds = Some(None);
            row.details.observed_update_interval_null_reason = Some(reason);
        }
    }
    match sequencer {
        Some((address, head)) => match &head.latest {
            Ok(status) => {
                row.flags.extend(sequencer_flags(
                    &status.answer.to_string(),
                    status.started_at,
                    block_timestamp,
                    thresholds.sequencer_grace_seconds,
                ));
                row.details.sequencer = Some(SequencerStatus {
                    feed: address.to_checksum(None),
                    answer: status.answer.to_string(),
                    status_since: status.started_at,
                    seconds_since_change: block_timestamp.saturating_sub(status.started_at),
                });
            }
            Err(failure) => {
                row.details.sequencer_null_reason = Some(format!(
                    "the sequencer uptime feed {address} failed: {failure}"
                ));
            }
        },
        None => {
            row.details.sequencer_null_reason = Some(match chain.chain() {
                Chain::Ethereum | Chain::Polygon => {
                    format!("{} has no L2 sequencer", chain.chain())
                }
                other => format!(
                    "no verified sequencer uptime feed address for {other} (none is built in); configure contracts.chainlink.sequencer_uptime to read one"
                ),
            });
        }
    }
    row
}
