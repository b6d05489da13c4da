//! Round trips 2 and 3 of a route read: the quotes that need no earlier answer with the state
//! of every pool, then the second legs of two-hop routes; and [`report`], the whole read of
//! `/dex/quote` in one call.

use alloy::primitives::{Address, U256};
use chain_read::ChainInfo;
use chain_read::dex::Pool;
use chain_read::l1_fee::{self, L1DataFee, L1FeeSlot};
use chain_read::{Batch, BatchResults, PinnedReader};

use crate::discovery::Discovery;
use crate::error::RouteError;
use crate::legs::{LegQuote, PoolStateReads, PoolStates};
use crate::outcome::{Failure, FailureReason, Leg, QuoteOutcome, Route};
use crate::plan::LegRole;
use crate::select::best_first_leg_per_kind;

pub mod lens;
mod report;

pub use report::{
    QuoteReport, ReadPath, Reference, ReportError, ReportRequest, Side, TokenError,
    native_as_wrapped, report, report_batches, request_token,
};

/// One leg to price and its place in a route.
#[derive(Debug, Clone, Copy)]
struct Job {
    pool: Pool,
    token_in: Address,
    amount_in: U256,
    role: LegRole,
    /// Index of the first leg (in round trip 2's first legs) a second leg continues.
    first: Option<usize>,
}

impl Job {
    fn add(&self, batch: &mut Batch, chain: &ChainInfo) -> LegQuote {
        LegQuote::add(batch, chain, self.pool, self.token_in, self.amount_in)
    }

    fn failure(&self, reason: FailureReason) -> Failure {
        Failure {
            dex: self.pool.dex,
            role: self.role,
            token_in: self.token_in,
            token_out: self.pool.other(self.token_in),
            variant: Some(self.pool.key.into()),
            pool: Some(self.pool.address),
            reason,
        }
    }
}

/// What round trip 2 settled.
struct FirstRound {
    states: PoolStates,
    direct: Vec<Route>,
    first_legs: Vec<Leg>,
    native_reference: Vec<Leg>,
    l1_data_fee: L1DataFee,
}

impl Discovery<'_> {
    /// Round trips 2 and 3: pool states and quotes of direct routes and first legs, then second
    /// legs.
    pub async fn quote(mut self, reader: &PinnedReader) -> Result<QuoteOutcome, RouteError> {
        if self.plan.request.amount_in.is_zero() {
            return Err(RouteError::ZeroAmount);
        }
        let first = self.quote_first_round(reader).await?;
        let jobs = self.second_leg_jobs(&first.first_legs);
        let mut routes = first.direct;
        routes.extend(
            self.quote_second_legs(reader, &jobs, &first.first_legs, &first.states)
                .await?,
        );
        routes.sort_by_key(|route| std::cmp::Reverse(route.amount_out()));
        Ok(QuoteOutcome {
            block: self.block,
            read_blocks: self.read_blocks,
            tokens: self.tokens,
            routes,
            native_reference: first.native_reference,
            failures: self.failures,
            round_trips: reader.round_trips().saturating_sub(self.start),
            gas_price: self.gas_price,
            l1_data_fee: first.l1_data_fee,
        })
    }

    /// The legs round trip 2 quotes: every pool of the direct pair and of every first leg with
    /// the amount sold, and of the native reference with its amount.
    fn first_round_jobs(&self) -> Vec<Job> {
        let request = &self.plan.request;
        let mut jobs = Vec::new();
        for pair in &self.plan.pairs {
            let amount_in = match pair.role {
                LegRole::Direct | LegRole::FirstLeg { .. } => request.amount_in,
                LegRole::NativeReference => match request.native_reference_amount {
                    Some(amount) if !amount.is_zero() => amount,
                    _ => continue,
                },
                LegRole::SecondLeg { .. } => continue,
            };
            for pool in self.pools_of(pair.token_in, pair.token_out) {
                jobs.push(Job {
                    pool: *pool,
                    token_in: pair.token_in,
                    amount_in,
                    role: pair.role,
                    first: None,
                });
            }
        }
        jobs
    }

    /// Round trip 2: the quotes that need no earlier answer, then the state of every pool.
    /// Quotes go first: a state read warms the pool's account and slots (EIP-2929) for the
    /// rest of the `eth_call`, while a quote reverts and warms nothing, so every QuoterV2
    /// `gasEstimate` here is the one a standalone call measures.
    async fn quote_first_round(&mut self, reader: &PinnedReader) -> Result<FirstRound, RouteError> {
        let chain = self.plan.chain;
        let mut batch = Batch::new();
        let jobs = self.first_round_jobs();
        let quotes: Vec<LegQuote> = jobs.iter().map(|job| job.add(&mut batch, chain)).collect();
        let states = PoolStateReads::add(&mut batch, chain, &self.pools);
        let l1_slot = self.l1_fee_slot(&mut batch);
        let results = execute(reader, batch).await?;
        let l1_data_fee = self.l1_data_fee(l1_slot, results.as_ref());

        let mut first = FirstRound {
            states: PoolStates::new(),
            direct: Vec::new(),
            first_legs: Vec::new(),
            native_reference: Vec::new(),
            l1_data_fee,
        };
        if let Some(results) = &results {
            self.read_blocks.push(results.block_number());
            first.states = states.decode(results);
        }
        for (job, quote) in jobs.iter().zip(&quotes) {
            match quote.settle(results.as_ref(), &first.states) {
                Ok(leg) => match job.role {
                    LegRole::Direct => first.direct.push(Route { legs: vec![leg] }),
                    LegRole::FirstLeg { .. } => first.first_legs.push(leg),
                    LegRole::NativeReference => first.native_reference.push(leg),
                    LegRole::SecondLeg { .. } => {}
                },
                Err(reason) => self.failures.push(job.failure(reason)),
            }
        }
        Ok(first)
    }

    /// Adds the L1 data fee of a representative swap when asked for, on a chain with an
    /// oracle, and only when round trip 2 is made anyway.
    fn l1_fee_slot(&self, batch: &mut Batch) -> Option<L1FeeSlot> {
        let request = &self.plan.request;
        let chain = self.plan.chain;
        match (request.read_l1_data_fee, chain.l1_gas_price_oracle()) {
            (true, Some(oracle)) if !batch.is_empty() => {
                // The fee fields are a stand-in (not this read's gas price), so the quote
                // lens composes the same transaction before any answer.
                let transaction = l1_fee::representative_swap_transaction(
                    chain,
                    request.token_in,
                    request.token_out,
                    request.amount_in,
                    l1_fee::REPRESENTATIVE_GAS_PRICE_WEI,
                );
                Some(l1_fee::l1_fee(batch, oracle, transaction))
            }
            _ => None,
        }
    }

    /// The L1 data fee read, or why there is none.
    fn l1_data_fee(&self, slot: Option<L1FeeSlot>, results: Option<&BatchResults>) -> L1DataFee {
        match (
            self.plan.request.read_l1_data_fee,
            self.plan.chain.l1_gas_price_oracle(),
            slot,
            results,
        ) {
            (false, _, _, _) => L1DataFee::NotRequested,
            (true, None, _, _) => L1DataFee::NoOracle,
            (true, Some(_), Some(slot), Some(results)) => slot.decode(results),
            (true, Some(_), _, _) => L1DataFee::NothingToPrice,
        }
    }

    /// The second legs to quote: from each intermediate to the output, through every pool of
    /// that pair, continuing the best first leg of each pool kind. A second pool without any
    /// first leg into its intermediate is a failure.
    fn second_leg_jobs(&mut self, first_legs: &[Leg]) -> Vec<Job> {
        let token_out = self.plan.request.token_out;
        let mut jobs = Vec::new();
        for via in self.plan.intermediates.clone() {
            let best = best_first_leg_per_kind(first_legs, via);
            let seconds: Vec<Pool> = self.pools_of(via, token_out).copied().collect();
            if best.is_empty() {
                for pool in seconds {
                    self.failures.push(Failure {
                        dex: pool.dex,
                        role: LegRole::SecondLeg { via },
                        token_in: via,
                        token_out,
                        variant: Some(pool.key.into()),
                        pool: Some(pool.address),
                        reason: FailureReason::NoFirstLeg,
                    });
                }
                continue;
            }
            for pool in seconds {
                for first in best.values() {
                    if let Some(leg) = first_legs.get(*first) {
                        jobs.push(Job {
                            pool,
                            token_in: via,
                            amount_in: leg.amount_out,
                            role: LegRole::SecondLeg { via },
                            first: Some(*first),
                        });
                    }
                }
            }
        }
        jobs
    }

    /// Round trip 3: the second legs (not sent when none needs a call), each joined to its
    /// first leg as a two-hop route.
    async fn quote_second_legs(
        &mut self,
        reader: &PinnedReader,
        jobs: &[Job],
        first_legs: &[Leg],
        states: &PoolStates,
    ) -> Result<Vec<Route>, RouteError> {
        let chain = self.plan.chain;
        let mut batch = Batch::new();
        let quotes: Vec<LegQuote> = jobs.iter().map(|job| job.add(&mut batch, chain)).collect();
        let results = execute(reader, batch).await?;
        if let Some(results) = &results {
            self.read_blocks.push(results.block_number());
        }
        let mut routes = Vec::new();
        for (job, quote) in jobs.iter().zip(&quotes) {
            match quote.settle(results.as_ref(), states) {
                Ok(second) => {
                    if let Some(first) = job.first.and_then(|i| first_legs.get(i)) {
                        routes.push(Route {
                            legs: vec![first.clone(), second],
                        });
                    }
                }
                Err(reason) => self.failures.push(job.failure(reason)),
            }
        }
        Ok(routes)
    }
}

/// Sends `batch` at the pinned block, or nothing when it is empty.
async fn execute(reader: &PinnedReader, batch: Batch) -> Result<Option<BatchResults>, RouteError> {
    if batch.is_empty() {
        Ok(None)
    } else {
        Ok(Some(reader.execute(batch).await?))
    }
}
