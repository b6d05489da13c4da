//! The answers bought with a payment id, and the transactions of settled authorizations.

use super::*;

/// What a payment id has bought so far ([`PaidAnswer::record`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PaidAnswerState {
    /// Verified and taken: the work runs, or its settlement does.
    Working,
    /// Settled, and the answer is kept: status and headers here, the body beside.
    Answered {
        /// The answer's status.
        status: u16,
        /// The answer's headers (`PAYMENT-RESPONSE` among them).
        headers: Vec<(String, String)>,
    },
    /// Settled, but the answer was over the size cap and is not kept.
    SettledNotKept {
        /// The settlement's transaction hash.
        transaction: String,
    },
    /// The settlement was sent and its outcome is unknown (it may still land).
    SettlementUnknown,
    /// As [`Self::SettlementUnknown`], with the answer kept (its body beside) for the repeats
    /// that come once the pending resolver finds the transfer landed: the answer was paid for.
    SettlementUnknownKept {
        /// The answer's status.
        status: u16,
        /// The answer's headers (without a receipt: it is added once settled).
        headers: Vec<(String, String)>,
        /// The settlement's transaction hash when the facilitator named one; empty otherwise.
        transaction: String,
    },
}

/// The record of one (payer, payment id): the request it was first sent with, the authorization
/// that pays for it, and how far it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidAnswerRecord {
    /// SHA-256 (hex) of the request's method, path and body.
    pub fingerprint: String,
    /// SHA-256 (hex) of the signed authorization (the payload's `payload`: authorization and
    /// signature), so only a holder of that signature is handed the answer without verification.
    pub authorization: String,
    /// Where it is.
    pub state: PaidAnswerState,
}

/// A [`PaidAnswerRecord`] and, once answered, the answer's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidAnswer {
    /// The record.
    pub record: PaidAnswerRecord,
    /// The body of an [`PaidAnswerState::Answered`] record; empty otherwise.
    pub body: Bytes,
}

impl PaidAnswer {
    /// A record without a body.
    pub fn without_body(record: PaidAnswerRecord) -> Self {
        Self {
            record,
            body: Bytes::new(),
        }
    }

    /// Stored form: the record's JSON, a line break (JSON from serde_json never holds a raw
    /// one), then the body's bytes.
    pub(super) fn encode(&self) -> Result<Vec<u8>, StateError> {
        let mut out = serde_json::to_vec(&self.record)?;
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        Ok(out)
    }

    pub(super) fn decode(stored: &[u8]) -> Result<Self, StateError> {
        let split = stored
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(stored.len());
        let record = serde_json::from_slice(&stored[..split])?;
        let body = Bytes::copy_from_slice(stored.get(split + 1..).unwrap_or_default());
        Ok(Self { record, body })
    }

    /// The same record with the body dropped because it is over `max_bytes`: settled, not kept.
    fn capped(self, max_bytes: usize, transaction: &str) -> Self {
        if self.body.len() <= max_bytes {
            return self;
        }
        metrics::counter!("paid_answers_not_kept_total").increment(1);
        let state = match self.record.state {
            // Not known to be settled: only its doubt is kept.
            PaidAnswerState::SettlementUnknownKept { .. } => PaidAnswerState::SettlementUnknown,
            _ => PaidAnswerState::SettledNotKept {
                transaction: transaction.to_owned(),
            },
        };
        Self::without_body(PaidAnswerRecord {
            state,
            ..self.record
        })
    }
}

/// Where the answers bought with a payment id, and the transaction of each settled
/// authorization, are kept until `until` (unix seconds: the gate passes the authorization's
/// `validBefore` plus the gate's `REPEAT_GRACE`).
///
/// Keys are `{payer}:{id}` for answers and [`replay_id`] for settlements.
#[async_trait]
pub trait PaidAnswers: Send + Sync + fmt::Debug {
    /// Binds `key` to `record` (normally [`PaidAnswerState::Working`]) unless it is bound
    /// already: `None` when it is bound now, the entry that holds it otherwise. Atomic across
    /// replicas: of two concurrent claims, one gets `None`.
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError>;
    /// The entry of `key`.
    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError>;
    /// Replaces the entry of `key` with `answer`. An answer whose body is over the store's cap
    /// is kept as [`PaidAnswerState::SettledNotKept`] with `transaction`.
    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError>;
    /// Forgets `key` if it is still `claimed` (the work failed or was refused: nothing was
    /// charged, so the id may be used again).
    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError>;
    /// Records that the authorization `authorization` ([`replay_id`]) settled in `transaction`.
    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError>;
    /// The transaction that settled `authorization`, if known.
    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError>;
}

/// The key of a payer's payment id.
pub fn paid_answer_key(payer: &Address, id: &str) -> String {
    format!("{payer}:{id}")
}

/// The in-process store: bodies bounded by `max_total_bytes` together (an answer that would
/// pass it is kept as settled-not-kept, like one over `max_entry_bytes`), entries dropped
/// after their `validBefore`.
#[derive(Debug)]
pub struct InMemoryPaidAnswers {
    pub(super) max_entry_bytes: usize,
    pub(super) max_total_bytes: usize,
    pub(super) inner: Mutex<MemoryAnswers>,
}

#[derive(Debug, Default)]
pub(super) struct MemoryAnswers {
    pub(super) answers: HashMap<String, (PaidAnswer, u64)>,
    pub(super) settlements: HashMap<String, (String, u64)>,
    pub(super) body_bytes: usize,
    pub(super) purged_at: u64,
}

impl MemoryAnswers {
    /// Drops what expired, at most once a second (a scan of every entry).
    fn purge(&mut self, now: u64) {
        if now == self.purged_at {
            return;
        }
        self.purged_at = now;
        let mut freed = 0;
        self.answers.retain(|_, (answer, until)| {
            let keep = *until >= now;
            if !keep {
                freed += answer.body.len();
            }
            keep
        });
        self.body_bytes = self.body_bytes.saturating_sub(freed);
        self.settlements.retain(|_, (_, until)| *until >= now);
    }

    fn remove(&mut self, key: &str) {
        if let Some((old, _)) = self.answers.remove(key) {
            self.body_bytes = self.body_bytes.saturating_sub(old.body.len());
        }
    }
}

impl InMemoryPaidAnswers {
    /// A store keeping answers of at most `max_entry_bytes`, `max_total_bytes` in all.
    pub fn new(max_entry_bytes: usize, max_total_bytes: usize) -> Self {
        Self {
            max_entry_bytes,
            max_total_bytes,
            inner: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryAnswers> {
        // Every update leaves the maps consistent: a poisoned lock still holds good entries.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes of answer bodies held now.
    pub fn body_bytes(&self) -> usize {
        self.lock().body_bytes
    }
}

#[async_trait]
impl PaidAnswers for InMemoryPaidAnswers {
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError> {
        let now = unix_now();
        let mut inner = self.lock();
        inner.purge(now);
        if let Some((held, held_until)) = inner.answers.get(key)
            && *held_until >= now
        {
            return Ok(Some(held.clone()));
        }
        inner.remove(key);
        inner.answers.insert(
            key.to_owned(),
            (PaidAnswer::without_body(record.clone()), until),
        );
        Ok(None)
    }

    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError> {
        let now = unix_now();
        Ok(self
            .lock()
            .answers
            .get(key)
            .filter(|(_, until)| *until >= now)
            .map(|(answer, _)| answer.clone()))
    }

    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let mut inner = self.lock();
        inner.remove(key);
        let room = self.max_total_bytes.saturating_sub(inner.body_bytes);
        let answer = answer.capped(self.max_entry_bytes.min(room), transaction);
        inner.body_bytes += answer.body.len();
        inner.answers.insert(key.to_owned(), (answer, until));
        Ok(())
    }

    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError> {
        let mut inner = self.lock();
        if inner
            .answers
            .get(key)
            .is_some_and(|(held, _)| held.record == *claimed)
        {
            inner.remove(key);
        }
        Ok(())
    }

    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let mut inner = self.lock();
        inner.purge(unix_now());
        inner
            .settlements
            .insert(authorization.to_owned(), (transaction.to_owned(), until));
        Ok(())
    }

    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError> {
        Ok(self
            .lock()
            .settlements
            .get(authorization)
            .map(|(transaction, _)| transaction.clone()))
    }
}

/// The Redis store: `{p}:paid:{payer}:{id}` holds the encoded [`PaidAnswer`] (claimed with
/// `SET NX GET`), `{p}:settled:{replay id}` the transaction hash; both expire at the
/// authorization's `validBefore`.
#[derive(Debug)]
pub struct RedisPaidAnswers {
    pub(super) redis: RedisState,
    pub(super) max_entry_bytes: usize,
    pub(super) abandon: redis::Script,
}

/// Deletes KEYS[1] only while it still holds ARGV[1] (the claim), so an answer recorded
/// meanwhile is never dropped.
pub(super) const ABANDON_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Milliseconds from now until `until` (unix seconds), at least one second.
pub(super) fn ttl_until(until: u64) -> u64 {
    until
        .saturating_sub(unix_now())
        .saturating_mul(1000)
        .max(1000)
}

impl RedisPaidAnswers {
    fn answer_key(&self, key: &str) -> String {
        self.redis.key(format_args!("paid:{key}"))
    }

    fn settlement_key(&self, authorization: &str) -> String {
        self.redis.key(format_args!("settled:{authorization}"))
    }

    /// `SET key value PX` until `until`.
    async fn set_until(
        &self,
        op: &'static str,
        key: String,
        value: &[u8],
        until: u64,
    ) -> Result<(), StateError> {
        let mut command = redis::cmd("SET");
        command.arg(key).arg(value).arg("PX").arg(ttl_until(until));
        self.redis
            .query::<Option<String>>(op, &command)
            .await
            .map(drop)
    }
}

#[async_trait]
impl PaidAnswers for RedisPaidAnswers {
    async fn claim(
        &self,
        key: &str,
        record: &PaidAnswerRecord,
        until: u64,
    ) -> Result<Option<PaidAnswer>, StateError> {
        let value = PaidAnswer::without_body(record.clone()).encode()?;
        let mut command = redis::cmd("SET");
        command
            .arg(self.answer_key(key))
            .arg(value)
            .arg("NX")
            .arg("GET")
            .arg("PX")
            .arg(ttl_until(until));
        let held: Option<Vec<u8>> = self.redis.query("paid_claim", &command).await?;
        held.map(|held| PaidAnswer::decode(&held)).transpose()
    }

    async fn get(&self, key: &str) -> Result<Option<PaidAnswer>, StateError> {
        let mut command = redis::cmd("GET");
        command.arg(self.answer_key(key));
        let held: Option<Vec<u8>> = self.redis.query("paid_get", &command).await?;
        held.map(|held| PaidAnswer::decode(&held)).transpose()
    }

    async fn finish(
        &self,
        key: &str,
        answer: PaidAnswer,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let value = answer.capped(self.max_entry_bytes, transaction).encode()?;
        self.set_until("paid_finish", self.answer_key(key), &value, until)
            .await
    }

    async fn abandon(&self, key: &str, claimed: &PaidAnswerRecord) -> Result<(), StateError> {
        let value = PaidAnswer::without_body(claimed.clone()).encode()?;
        let redis_key = self.answer_key(key);
        self.redis
            .script::<i64, Vec<u8>>("paid_abandon", &self.abandon, &[&redis_key], &[value])
            .await
            .map(drop)
    }

    async fn record_settlement(
        &self,
        authorization: &str,
        transaction: &str,
        until: u64,
    ) -> Result<(), StateError> {
        let key = self.settlement_key(authorization);
        self.set_until("settlement_record", key, transaction.as_bytes(), until)
            .await
    }

    async fn settlement(&self, authorization: &str) -> Result<Option<String>, StateError> {
        let mut command = redis::cmd("GET");
        command.arg(self.settlement_key(authorization));
        self.redis.query("settlement_get", &command).await
    }
}
