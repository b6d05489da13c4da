//! The x402 v2 `offer-receipt` extension, EIP-712 form: a resource server signs each offer of
//! its 402 (what it asks, for which resource, until when) and a receipt of each paid answer (who
//! paid, for which resource, when, in which transaction), so a client can later prove both
//! against the server's key. The typed data, domains and JSON shapes are those of
//! `@x402/extensions` 2.27 (`offer-receipt`), whose verifier
//! (`verifyOfferSignatureEIP712`, `verifyReceiptSignatureEIP712`) must recover our address.
//!
//! The domains carry no verifying contract and `chainId` 1 whatever the payment network: the
//! signature binds the server's key to the offer, not to a chain.

use alloy::primitives::{Address, B256, U256};
use alloy::sol;
use alloy::sol_types::{Eip712Domain, SolStruct, eip712_domain};
use serde_json::{Value, json};

use crate::types::PaymentRequirements;

/// The extension's key in `extensions`.
pub const OFFER_RECEIPT: &str = "offer-receipt";

/// The payload schema version both payloads carry.
const PAYLOAD_VERSION: u64 = 1;

sol! {
    /// What a signed offer commits to (the extension's `Offer` type).
    #[derive(Debug, PartialEq, Eq)]
    struct Offer {
        uint256 version;
        string resourceUrl;
        string scheme;
        string network;
        string asset;
        string payTo;
        string amount;
        uint256 validUntil;
    }

    /// What a signed receipt commits to (the extension's `Receipt` type).
    #[derive(Debug, PartialEq, Eq)]
    struct Receipt {
        uint256 version;
        string network;
        string resourceUrl;
        string payer;
        uint256 issuedAt;
        string transaction;
    }
}

fn offer_domain() -> Eip712Domain {
    eip712_domain! { name: "x402 offer", version: "1", chain_id: 1, }
}

fn receipt_domain() -> Eip712Domain {
    eip712_domain! { name: "x402 receipt", version: "1", chain_id: 1, }
}

impl Offer {
    /// The offer of `requirements` for `resource_url`, valid until `valid_until` (unix seconds).
    pub fn of(resource_url: &str, requirements: &PaymentRequirements, valid_until: u64) -> Self {
        Self {
            version: U256::from(PAYLOAD_VERSION),
            resourceUrl: resource_url.to_owned(),
            scheme: requirements.scheme.clone(),
            network: requirements.network.clone(),
            asset: requirements.asset.clone(),
            payTo: requirements.pay_to.clone(),
            amount: requirements.amount.clone(),
            validUntil: U256::from(valid_until),
        }
    }

    /// The EIP-712 digest that is signed.
    pub fn digest(&self) -> B256 {
        self.eip712_signing_hash(&offer_domain())
    }

    fn payload_json(&self) -> Value {
        json!({
            "version": PAYLOAD_VERSION,
            "resourceUrl": self.resourceUrl,
            "scheme": self.scheme,
            "network": self.network,
            "asset": self.asset,
            "payTo": self.payTo,
            "amount": self.amount,
            "validUntil": self.validUntil.saturating_to::<u64>(),
        })
    }
}

impl Receipt {
    /// The receipt of a payment by `payer` on `network` for `resource_url`, issued at
    /// `issued_at` (unix seconds), naming `transaction` (empty: not named).
    pub fn of(
        resource_url: &str,
        payer: &str,
        network: &str,
        transaction: &str,
        issued_at: u64,
    ) -> Self {
        Self {
            version: U256::from(PAYLOAD_VERSION),
            network: network.to_owned(),
            resourceUrl: resource_url.to_owned(),
            payer: payer.to_owned(),
            issuedAt: U256::from(issued_at),
            transaction: transaction.to_owned(),
        }
    }

    /// The EIP-712 digest that is signed.
    pub fn digest(&self) -> B256 {
        self.eip712_signing_hash(&receipt_domain())
    }

    fn payload_json(&self) -> Value {
        json!({
            "version": PAYLOAD_VERSION,
            "network": self.network,
            "resourceUrl": self.resourceUrl,
            "payer": self.payer,
            "issuedAt": self.issuedAt.saturating_to::<u64>(),
            "transaction": self.transaction,
        })
    }
}

/// The JSON Schema the extension declares beside the offers (as `@x402/extensions` does).
fn offers_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"offers": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "format": {"type": "string"},
                "acceptIndex": {"type": "integer"},
                "payload": {"type": "object", "properties": {
                    "version": {"type": "integer"}, "resourceUrl": {"type": "string"},
                    "scheme": {"type": "string"}, "network": {"type": "string"},
                    "asset": {"type": "string"}, "payTo": {"type": "string"},
                    "amount": {"type": "string"}, "validUntil": {"type": "integer"}},
                    "required": ["version", "resourceUrl", "scheme", "network", "asset", "payTo", "amount"]},
                "signature": {"type": "string"}},
            "required": ["format", "signature"]}}},
        "required": ["offers"]
    })
}

/// The JSON Schema the extension declares beside a receipt.
fn receipt_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"receipt": {
            "type": "object",
            "properties": {
                "format": {"type": "string"},
                "payload": {"type": "object", "properties": {
                    "version": {"type": "integer"}, "network": {"type": "string"},
                    "resourceUrl": {"type": "string"}, "payer": {"type": "string"},
                    "issuedAt": {"type": "integer"}, "transaction": {"type": "string"}},
                    "required": ["version", "network", "resourceUrl", "payer", "issuedAt"]},
                "signature": {"type": "string"}},
            "required": ["format", "signature"]}},
        "required": ["receipt"]
    })
}

/// The address that signed an `eip712` offer or receipt as the extension's JSON carries it
/// (`{"format", "payload", "signature"}`), or `None` when it is not one or does not recover.
/// What the client-side verifier does; here for tests and for Rust clients.
pub fn recover_signer(signed: &Value) -> Option<Address> {
    if signed.get("format")?.as_str()? != "eip712" {
        return None;
    }
    let payload = signed.get("payload")?;
    let text = |key: &str| Some(payload.get(key)?.as_str()?.to_owned());
    let number = |key: &str| payload.get(key)?.as_u64();
    let digest = if payload.get("scheme").is_some() {
        Offer {
            version: U256::from(number("version")?),
            resourceUrl: text("resourceUrl")?,
            scheme: text("scheme")?,
            network: text("network")?,
            asset: text("asset")?,
            payTo: text("payTo")?,
            amount: text("amount")?,
            validUntil: U256::from(number("validUntil").unwrap_or(0)),
        }
        .digest()
    } else {
        Receipt {
            version: U256::from(number("version")?),
            network: text("network")?,
            resourceUrl: text("resourceUrl")?,
            payer: text("payer")?,
            issuedAt: U256::from(number("issuedAt")?),
            transaction: text("transaction").unwrap_or_default(),
        }
        .digest()
    };
    let bytes = alloy::hex::decode(signed.get("signature")?.as_str()?).ok()?;
    let signature = alloy::primitives::Signature::try_from(bytes.as_slice()).ok()?;
    signature.recover_address_from_prehash(&digest).ok()
}

/// Signs offers and receipts with the resource server's key (feature `facilitator`, which
/// holds keys). The key is never printed: `Debug` shows the address only.
#[cfg(feature = "facilitator")]
#[derive(Clone)]
pub struct OfferReceiptSigner {
    signer: alloy::signers::local::PrivateKeySigner,
    offer_validity_seconds: u64,
}

#[cfg(feature = "facilitator")]
impl std::fmt::Debug for OfferReceiptSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferReceiptSigner")
            .field("address", &self.signer.address())
            .field("offer_validity_seconds", &self.offer_validity_seconds)
            .finish()
    }
}

#[cfg(feature = "facilitator")]
impl OfferReceiptSigner {
    /// A signer with `key` whose offers hold for `offer_validity_seconds`.
    pub fn new(key: alloy::signers::local::PrivateKeySigner, offer_validity_seconds: u64) -> Self {
        Self {
            signer: key,
            offer_validity_seconds: offer_validity_seconds.max(1),
        }
    }

    /// The signing address, which clients check offers and receipts against.
    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// The key id the extension names (`did:pkh` of the signing address; its chain is the
    /// domains' chain id).
    pub fn kid(&self) -> String {
        format!("did:pkh:eip155:1:{}", self.address().to_checksum(None))
    }

    /// How long an offer holds.
    pub fn offer_validity_seconds(&self) -> u64 {
        self.offer_validity_seconds
    }

    fn sign(&self, digest: &B256) -> Result<String, alloy::signers::Error> {
        use alloy::signers::SignerSync;
        let signature = self.signer.sign_hash_sync(digest)?;
        Ok(format!("0x{}", alloy::hex::encode(signature.as_bytes())))
    }

    /// The extension's member for a 402: one signed offer per entry of `accepts`, for
    /// `resource_url`, valid until `valid_until` (unix seconds).
    pub fn offers(
        &self,
        resource_url: &str,
        accepts: &[&PaymentRequirements],
        valid_until: u64,
    ) -> Result<Value, alloy::signers::Error> {
        let offers = accepts
            .iter()
            .enumerate()
            .map(|(index, requirements)| {
                let offer = Offer::of(resource_url, requirements, valid_until);
                Ok(json!({
                    "format": "eip712",
                    "acceptIndex": index,
                    "payload": offer.payload_json(),
                    "signature": self.sign(&offer.digest())?,
                }))
            })
            .collect::<Result<Vec<_>, alloy::signers::Error>>()?;
        Ok(json!({"info": {"offers": offers}, "schema": offers_schema()}))
    }

    /// The extension's member for a settlement response: the signed receipt.
    pub fn receipt(&self, receipt: &Receipt) -> Result<Value, alloy::signers::Error> {
        let signed = json!({
            "format": "eip712",
            "payload": receipt.payload_json(),
            "signature": self.sign(&receipt.digest())?,
        });
        Ok(json!({"info": {"receipt": signed}, "schema": receipt_schema()}))
    }
}

#[cfg(all(test, feature = "facilitator"))]
mod tests {
    use super::*;
    use alloy::signers::local::PrivateKeySigner;

    fn requirements() -> PaymentRequirements {
        crate::PaymentTerms::base_usdc(Address::repeat_byte(0x11))
            .requirements(U256::from(5_000u64), 80)
    }

    fn signer() -> OfferReceiptSigner {
        let key: PrivateKeySigner =
            "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
                .parse()
                .expect("key");
        OfferReceiptSigner::new(key, 300)
    }

    #[test]
    fn offers_recover_to_the_signer_and_name_each_accepted_entry() {
        let signer = signer();
        let ours = requirements();
        let extension = signer
            .offers("http://a.test/dex/quote", &[&ours], 1_900_000_000)
            .expect("signed");
        let offer = &extension["info"]["offers"][0];
        assert_eq!(offer["acceptIndex"], 0);
        assert_eq!(offer["payload"]["amount"], "5000");
        assert_eq!(offer["payload"]["validUntil"], 1_900_000_000u64);
        assert_eq!(recover_signer(offer), Some(signer.address()));
        let mut tampered = offer.clone();
        tampered["payload"]["amount"] = json!("1");
        assert_ne!(recover_signer(&tampered), Some(signer.address()));
    }

    #[test]
    fn receipts_recover_to_the_signer() {
        let signer = signer();
        let receipt = Receipt::of(
            "http://a.test/dex/quote",
            "0x0000000000000000000000000000000000000001",
            "eip155:8453",
            "0xabc",
            1_800_000_000,
        );
        let extension = signer.receipt(&receipt).expect("signed");
        let signed = &extension["info"]["receipt"];
        assert_eq!(signed["payload"]["transaction"], "0xabc");
        assert_eq!(recover_signer(signed), Some(signer.address()));
        assert!(!format!("{signer:?}").contains("59c6995e"));
    }

    /// Digests computed by viem's `hashTypedData` with the extension's domains and types
    /// (`@x402/extensions` 2.27 `hashOfferTypedData` / `hashReceiptTypedData`), so the Rust
    /// encoding is pinned to the client's and not only to itself.
    #[test]
    fn digests_match_the_official_encoding() {
        let offer = Offer::of("http://a.test/r", &requirements(), 1_900_000_000);
        let receipt = Receipt::of(
            "http://a.test/r",
            "0x0000000000000000000000000000000000000001",
            "eip155:8453",
            "",
            1_800_000_000,
        );
        assert_eq!(
            offer.digest().to_string(),
            OFFICIAL_OFFER_DIGEST,
            "offer digest"
        );
        assert_eq!(
            receipt.digest().to_string(),
            OFFICIAL_RECEIPT_DIGEST,
            "receipt digest"
        );
    }

    const OFFICIAL_OFFER_DIGEST: &str =
        "0xca95aa95bd16130cd5fb3dd86322640da39bc5847fbc4ed1b6be87b7246b57e1";
    const OFFICIAL_RECEIPT_DIGEST: &str =
        "0xac9ecd73f4360197c62d5e163cfa3aa0716764c129e781c041d55c9c72e2f27e";
}
