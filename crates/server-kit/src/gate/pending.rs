//! Settlements whose outcome is unknown or pending: how often they are looked for, and their
//! resolution (never settling again).

use super::*;

/// How often stale pending settlements are looked for, and when a record counts as stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingTiming {
    /// Time between two scans.
    pub scan_every: Duration,
    /// Age from which a record is taken to belong to a replica that died.
    pub stale_after: Duration,
}

impl Default for PendingTiming {
    fn default() -> Self {
        Self {
            scan_every: Duration::from_secs(30),
            stale_after: Duration::from_secs(120),
        }
    }
}

/// What one pass over the pending settlements found ([`PaymentGate::resolve_pending`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingReport {
    /// Records found to have settled (the authorization is spent): marked settled, cleared and
    /// logged, since their answer never reached the payer.
    pub settled: usize,
    /// Records found not to have settled: the authorization was released (the payer was not
    /// charged and may use it again) and the record cleared.
    pub released: usize,
    /// Records whose authorization has expired, so the facilitator cannot tell: cleared and
    /// logged for a person to check on chain.
    pub expired: usize,
    /// Records left for a later pass (too young, claimed by another replica, or the
    /// facilitator could not be asked).
    pub left: usize,
}

impl PaymentGate {
    /// Resolves the pending settlements older than the gate's `stale_after` (see
    /// [`Self::resolve_pending_older_than`]).
    pub async fn resolve_pending(&self) -> Result<PendingReport, StateError> {
        self.resolve_pending_older_than(self.pending_timing.stale_after)
            .await
    }

    /// Resolves the pending settlements recorded more than `stale_after` ago, which a replica
    /// that died between its work and the settlement's outcome left behind. It never settles:
    /// the answer never reached the payer, so charging now would sell nothing. It asks the
    /// facilitator to verify the authorization again instead:
    ///
    /// - the nonce is used: the settlement went through (the payer was charged once, and gets
    ///   no answer): the authorization is marked settled, the record cleared, and the loss
    ///   logged and counted (`pending_settlements_resolved_total{outcome="settled"}`) for a
    ///   person to refund;
    /// - still valid: it never settled: the authorization is released, so the payer may use
    ///   it again, and the record cleared (`outcome="released"`). Should the lost settlement
    ///   still land later, the token refuses the nonce a second time: charged at most once;
    /// - expired: nobody can tell any more without reading the chain: cleared and logged
    ///   (`outcome="expired"`).
    ///
    /// Each record is claimed first, so two replicas never resolve the same one.
    pub async fn resolve_pending_older_than(
        &self,
        stale_after: Duration,
    ) -> Result<PendingReport, StateError> {
        let now = unix_now();
        let mut report = PendingReport::default();
        for record in self.pending.list().await? {
            let age = now.saturating_sub(record.recorded_at);
            if age < stale_after.as_secs() {
                report.left += 1;
                continue;
            }
            // A payment id still `working` means its settling task has not recorded the
            // settle call's outcome (and the answer kept with it) yet: a slow call, or a dead
            // replica. It gets twice the time before it counts as dead, so the resolver never
            // writes over what a live task is about to record.
            if let Some(paid) = &record.paid_answer
                && age < stale_after.as_secs().saturating_mul(2)
                && matches!(
                    self.answers.get(&paid.key).await,
                    Ok(Some(held)) if held.record.state == PaidAnswerState::Working
                )
            {
                report.left += 1;
                continue;
            }
            let lease = self.pending_timing.scan_every.max(Duration::from_secs(60));
            if !self.pending.claim(&record.id, lease).await? {
                report.left += 1;
                continue;
            }
            let Some((key, _)) = self.replay_key(&record.payload) else {
                warn!(
                    id = record.id,
                    "a pending settlement names no readable authorization"
                );
                report.left += 1;
                continue;
            };
            let outcome = if record.expires_at < now {
                warn!(id = record.id, route = record.route, payer = %key.from,
                    "a pending settlement expired unresolved; check the chain for its nonce");
                // An expired authorization buys nothing any more; its lock may go.
                self.replay.release(key).await;
                report.expired += 1;
                "expired"
            } else {
                match self
                    .facilitator_for(&record.requirements.network)
                    .verify(&record.payload, &record.requirements)
                    .await
                {
                    Ok(verdict) if verdict.is_valid => {
                        self.replay.release(key).await;
                        info!(id = record.id, route = record.route, payer = %key.from,
                            "a pending settlement never settled; its authorization is free again");
                        report.released += 1;
                        "released"
                    }
                    Ok(verdict)
                        if verdict.invalid_reason.as_deref()
                            == Some(reasons::NONCE_ALREADY_USED) =>
                    {
                        self.replay.mark_settled(key).await;
                        warn!(id = record.id, route = record.route, payer = %key.from,
                            "a pending settlement went through but its answer was lost with its replica; the payer paid for no answer");
                        report.settled += 1;
                        "settled"
                    }
                    Ok(verdict) => {
                        // Refused for another reason (balance, signature): it did not settle,
                        // and the authorization cannot buy anything as it stands.
                        self.replay.release(key).await;
                        info!(id = record.id, reason = ?verdict.invalid_reason,
                            "a pending settlement is no longer payable; released");
                        report.released += 1;
                        "released"
                    }
                    Err(e) => {
                        warn!(id = record.id, error = %e, "a pending settlement could not be checked; left for later");
                        report.left += 1;
                        continue;
                    }
                }
            };
            if let Some(paid) = &record.paid_answer {
                // The payment id follows its authorization: settled, its repeats get the answer
                // kept beside the doubt (or hear that they paid, when none was kept); otherwise
                // the id is free again, like the authorization.
                let until = record.expires_at.saturating_add(REPEAT_GRACE.as_secs());
                let kept = match self.answers.get(&paid.key).await {
                    Ok(Some(held)) => match held.record.state {
                        PaidAnswerState::SettlementUnknownKept {
                            status,
                            headers,
                            transaction,
                        } => Some((status, headers, transaction, held.body)),
                        _ => None,
                    },
                    _ => None,
                };
                let done = if outcome == "settled" {
                    let answer = match kept {
                        Some((status, headers, transaction, body)) => {
                            let receipt = Self::with_signed_receipt(
                                self.offer_signer.as_deref(),
                                &record.payload.resource.as_ref().map_or_else(
                                    || record.route.clone(),
                                    |resource| resource.url.clone(),
                                ),
                                key.from,
                                SettleResponse {
                                    success: true,
                                    error_reason: None,
                                    error_message: None,
                                    payer: Some(key.from.to_checksum(None)),
                                    transaction,
                                    network: record.requirements.network.clone(),
                                    extensions: None,
                                },
                            );
                            let mut headers = headers;
                            if let Ok(encoded) = encode_header(&receipt) {
                                headers.push((PAYMENT_RESPONSE.to_owned(), encoded));
                            }
                            info!(
                                id = record.id,
                                "a pending settlement landed; its kept answer goes to the payment id's repeats"
                            );
                            PaidAnswer {
                                record: PaidAnswerRecord {
                                    state: PaidAnswerState::Answered { status, headers },
                                    ..paid.record.clone()
                                },
                                body,
                            }
                        }
                        None => PaidAnswer::without_body(PaidAnswerRecord {
                            state: PaidAnswerState::SettledNotKept {
                                transaction: String::new(),
                            },
                            ..paid.record.clone()
                        }),
                    };
                    self.answers.finish(&paid.key, answer, "", until).await
                } else if kept.is_some() {
                    // Back to the bare doubt first, which the id is then freed from.
                    match self
                        .answers
                        .finish(
                            &paid.key,
                            PaidAnswer::without_body(paid.record.clone()),
                            "",
                            until,
                        )
                        .await
                    {
                        Ok(()) => self.answers.abandon(&paid.key, &paid.record).await,
                        failed => failed,
                    }
                } else {
                    // Unknown if its replica recorded the outcome, `working` if it died first.
                    let working = PaidAnswerRecord {
                        state: PaidAnswerState::Working,
                        ..paid.record.clone()
                    };
                    match self.answers.abandon(&paid.key, &working).await {
                        Ok(()) => self.answers.abandon(&paid.key, &paid.record).await,
                        failed => failed,
                    }
                };
                if let Err(e) = done {
                    warn!(id = record.id, error = %e, "a pending settlement's payment id could not be updated");
                }
            }
            metrics::counter!("pending_settlements_resolved_total", "outcome" => outcome)
                .increment(1);
            self.pending.clear(&record.id).await?;
        }
        Ok(report)
    }

    /// Starts the periodic scan for stale pending settlements on the current tokio runtime
    /// (none without one). With the in-memory state it resolves this replica's own settlements
    /// whose outcome was unknown; with Redis also those of replicas that died. The task runs
    /// until its handle is aborted.
    pub fn spawn_pending_resolver(&self) -> Option<tokio::task::JoinHandle<()>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let gate = self.clone();
        Some(runtime.spawn(async move {
            let mut every = tokio::time::interval(gate.pending_timing.scan_every);
            loop {
                every.tick().await;
                if let Err(e) = gate.resolve_pending().await {
                    warn!(error = %e, "pending settlements could not be scanned");
                }
            }
        }))
    }
}
