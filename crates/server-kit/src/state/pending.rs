//! Settlements sent whose outcome is not recorded yet, for another replica to resolve.

use super::*;

/// A settlement sent (or about to be sent) to the facilitator whose outcome this replica has
/// not recorded yet. Written before the settle call and cleared once its outcome is recorded,
/// so a replica that dies in between leaves it for another one to resolve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSettlement {
    /// [`replay_id`] of the authorization.
    pub id: String,
    /// The route that did the work.
    pub route: String,
    /// The payment, as verified.
    pub payload: PaymentPayload,
    /// The terms it paid.
    pub requirements: PaymentRequirements,
    /// When the record was written, unix seconds.
    pub recorded_at: u64,
    /// The authorization's `validBefore`, unix seconds.
    pub expires_at: u64,
    /// The payment id the payment carried, if any, so that the resolver can say what it came
    /// to (absent in records written before payment ids were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid_answer: Option<PendingAnswer>,
}

/// The payment id of a pending settlement: its key and its record while the outcome is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAnswer {
    /// `{payer}:{id}` ([`paid_answer_key`]).
    pub key: String,
    /// The record as it stands while the settlement's outcome is unknown.
    pub record: PaidAnswerRecord,
}

/// Where [`PendingSettlement`]s are kept.
#[async_trait]
pub trait PendingSettlements: Send + Sync + fmt::Debug {
    /// Records `record` (before its settle call).
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError>;
    /// Forgets the record `id` (its outcome is recorded).
    async fn clear(&self, id: &str) -> Result<(), StateError>;
    /// Every record.
    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError>;
    /// Claims `id` for resolution for `lease`: true for exactly one caller per lease, so two
    /// replicas never both resolve one record.
    async fn claim(&self, id: &str, lease: Duration) -> Result<bool, StateError>;
}

/// The in-process store (one replica: it dies with its process, like the settlement).
#[derive(Debug, Default)]
pub struct InMemoryPending {
    pub(super) records: Mutex<HashMap<String, PendingSettlement>>,
}

#[async_trait]
impl PendingSettlements for InMemoryPending {
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(record.id.clone(), record.clone());
        Ok(())
    }

    async fn clear(&self, id: &str) -> Result<(), StateError> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        Ok(())
    }

    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError> {
        Ok(self
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect())
    }

    async fn claim(&self, id: &str, _lease: Duration) -> Result<bool, StateError> {
        // One process: removing it is the claim.
        Ok(self
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id))
    }
}

/// The Redis store: one hash of JSON records, and a `SET NX PX` per claim.
#[derive(Debug, Clone)]
pub struct RedisPending {
    pub(super) redis: RedisState,
}

impl RedisPending {
    fn hash(&self) -> String {
        self.redis.key(format_args!("pending"))
    }
}

#[async_trait]
impl PendingSettlements for RedisPending {
    async fn record(&self, record: &PendingSettlement) -> Result<(), StateError> {
        let json = serde_json::to_string(record)?;
        let mut command = redis::cmd("HSET");
        command.arg(self.hash()).arg(&record.id).arg(json);
        self.redis
            .query::<i64>("pending_record", &command)
            .await
            .map(drop)
    }

    async fn clear(&self, id: &str) -> Result<(), StateError> {
        let mut command = redis::cmd("HDEL");
        command.arg(self.hash()).arg(id);
        self.redis
            .query::<i64>("pending_clear", &command)
            .await
            .map(drop)
    }

    async fn list(&self) -> Result<Vec<PendingSettlement>, StateError> {
        let mut command = redis::cmd("HGETALL");
        command.arg(self.hash());
        let records: HashMap<String, String> = self.redis.query("pending_list", &command).await?;
        let mut out = Vec::with_capacity(records.len());
        for json in records.values() {
            match serde_json::from_str(json) {
                Ok(record) => out.push(record),
                // One unreadable record must not hide the others; it stays for a person.
                Err(e) => warn!(error = %e, "a pending settlement record cannot be read"),
            }
        }
        Ok(out)
    }

    async fn claim(&self, id: &str, lease: Duration) -> Result<bool, StateError> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.redis.key(format_args!("pending-claim:{id}")))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1));
        let taken: Option<String> = self.redis.query("pending_claim", &command).await?;
        Ok(taken.is_some())
    }
}
