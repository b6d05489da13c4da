//! EIP-3009 `TransferWithAuthorization` under EIP-712: the digest a payer signs, recovery of
//! the signer, and (for Rust clients and tests) producing a signed `exact` payment.

use alloy::primitives::{Address, B256, Bytes, U256};
use alloy::sol;
use alloy::sol_types::{Eip712Domain, SolStruct, eip712_domain};
use serde_json::Value;

use crate::types::{AuthorizationWire, ExactEvmPayload};
#[cfg(feature = "facilitator")]
use {
    crate::types::{PaymentPayload, PaymentRequirements, ResourceInfo, X402_VERSION},
    alloy::primitives::Signature,
    alloy::signers::SignerSync,
    alloy::signers::local::PrivateKeySigner,
};

sol! {
    /// The EIP-712 struct a payer signs (EIP-3009).
    #[derive(Debug, PartialEq, Eq)]
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
}

/// A payload field that is not what the scheme requires.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct PayloadError {
    /// The offending field.
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

fn payload_error(field: &'static str, problem: impl Into<String>) -> PayloadError {
    PayloadError {
        field,
        problem: problem.into(),
    }
}

/// An `exact` EVM payload with every field parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedAuthorization {
    /// The signed struct.
    pub authorization: TransferWithAuthorization,
    /// The raw signature bytes (65 for an EOA).
    pub signature: Bytes,
}

impl SignedAuthorization {
    /// Parses the wire form; every number must be a decimal string, the nonce 32 bytes.
    pub fn from_wire(wire: &ExactEvmPayload) -> Result<Self, PayloadError> {
        let auth = &wire.authorization;
        let address = |field: &'static str, text: &str| {
            text.parse::<Address>()
                .map_err(|_| payload_error(field, "not an address"))
        };
        let number = |field: &'static str, text: &str| {
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(payload_error(field, "not a decimal integer"));
            }
            U256::from_str_radix(text, 10).map_err(|_| payload_error(field, "overflows uint256"))
        };
        let nonce = auth
            .nonce
            .parse::<B256>()
            .map_err(|_| payload_error("authorization.nonce", "not 32 bytes of hex"))?;
        let signature = wire
            .signature
            .parse::<Bytes>()
            .map_err(|_| payload_error("signature", "not hex"))?;
        Ok(Self {
            authorization: TransferWithAuthorization {
                from: address("authorization.from", &auth.from)?,
                to: address("authorization.to", &auth.to)?,
                value: number("authorization.value", &auth.value)?,
                validAfter: number("authorization.validAfter", &auth.valid_after)?,
                validBefore: number("authorization.validBefore", &auth.valid_before)?,
                nonce,
            },
            signature,
        })
    }

    /// Reads the `exact` EVM payload out of a payment payload's scheme-specific part.
    pub fn from_payload_value(payload: &Value) -> Result<Self, PayloadError> {
        let wire: ExactEvmPayload = serde_json::from_value(payload.clone())
            .map_err(|e| payload_error("payload", e.to_string()))?;
        Self::from_wire(&wire)
    }

    /// The wire form.
    pub fn to_wire(&self) -> ExactEvmPayload {
        let auth = &self.authorization;
        ExactEvmPayload {
            signature: self.signature.to_string(),
            authorization: AuthorizationWire {
                from: auth.from.to_checksum(None),
                to: auth.to.to_checksum(None),
                value: auth.value.to_string(),
                valid_after: auth.validAfter.to_string(),
                valid_before: auth.validBefore.to_string(),
                nonce: auth.nonce.to_string(),
            },
        }
    }

    /// The ECDSA signer of a 65-byte signature over `digest`, if it is one (feature
    /// `facilitator`: ECDSA recovery).
    #[cfg(feature = "facilitator")]
    pub fn recover_eoa(&self, digest: B256) -> Option<Address> {
        if self.signature.len() != 65 {
            return None;
        }
        let signature = Signature::try_from(self.signature.as_ref()).ok()?;
        signature.recover_address_from_prehash(&digest).ok()
    }
}

/// The token's EIP-712 domain.
pub fn token_domain(name: &str, version: &str, chain_id: u64, token: Address) -> Eip712Domain {
    eip712_domain! {
        name: name.to_owned(),
        version: version.to_owned(),
        chain_id: chain_id,
        verifying_contract: token,
    }
}

/// The EIP-712 digest of an authorization under a domain.
pub fn authorization_digest(auth: &TransferWithAuthorization, domain: &Eip712Domain) -> B256 {
    auth.eip712_signing_hash(domain)
}

/// A Rust payer (feature `facilitator`): signs an `exact` EIP-3009 payment for `requirements`, valid from `valid_after`
/// until `valid_before` (unix seconds), with the given nonce. The official TS client does the
/// same with `validAfter = 0`, `validBefore = now + maxTimeoutSeconds` and a random nonce.
#[cfg(feature = "facilitator")]
#[derive(Debug, Clone)]
pub struct PaymentSigner {
    signer: PrivateKeySigner,
    chain_id: u64,
}

/// Why a payment could not be signed for some requirements.
#[cfg(feature = "facilitator")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    /// A requirement field is unusable.
    #[error("requirement {0} is invalid")]
    Requirement(&'static str),
    /// The signer failed.
    #[error("signing failed: {0}")]
    Signer(#[from] alloy::signers::Error),
}

/// The time window and nonce of one authorization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthorizationWindow {
    /// Unix seconds after which the authorization is usable.
    pub valid_after: u64,
    /// Unix seconds before which the authorization is usable.
    pub valid_before: u64,
    /// The authorization's nonce.
    pub nonce: B256,
}

#[cfg(feature = "facilitator")]
impl PaymentSigner {
    /// A payer for `chain_id` with this key.
    pub fn new(signer: PrivateKeySigner, chain_id: u64) -> Self {
        Self { signer, chain_id }
    }

    /// The payer's address.
    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// Signs `authorization` for a token domain.
    pub fn sign_authorization(
        &self,
        authorization: TransferWithAuthorization,
        domain: &Eip712Domain,
    ) -> Result<SignedAuthorization, SignError> {
        let digest = authorization_digest(&authorization, domain);
        let signature = self.signer.sign_hash_sync(&digest)?;
        Ok(SignedAuthorization {
            authorization,
            signature: Bytes::from(signature.as_bytes()),
        })
    }

    /// A complete `PaymentPayload` paying `requirements` exactly.
    pub fn pay(
        &self,
        requirements: &PaymentRequirements,
        resource: Option<ResourceInfo>,
        window: AuthorizationWindow,
    ) -> Result<PaymentPayload, SignError> {
        let extra = requirements
            .extra
            .as_ref()
            .ok_or(SignError::Requirement("extra"))?;
        let name = extra
            .get("name")
            .and_then(Value::as_str)
            .ok_or(SignError::Requirement("extra.name"))?;
        let version = extra
            .get("version")
            .and_then(Value::as_str)
            .ok_or(SignError::Requirement("extra.version"))?;
        let asset: Address = requirements
            .asset
            .parse()
            .map_err(|_| SignError::Requirement("asset"))?;
        let pay_to: Address = requirements
            .pay_to
            .parse()
            .map_err(|_| SignError::Requirement("payTo"))?;
        let value = U256::from_str_radix(&requirements.amount, 10)
            .map_err(|_| SignError::Requirement("amount"))?;
        let authorization = TransferWithAuthorization {
            from: self.address(),
            to: pay_to,
            value,
            validAfter: U256::from(window.valid_after),
            validBefore: U256::from(window.valid_before),
            nonce: window.nonce,
        };
        let domain = token_domain(name, version, self.chain_id, asset);
        let signed = self.sign_authorization(authorization, &domain)?;
        let payload = serde_json::to_value(signed.to_wire())
            .map_err(|_| SignError::Requirement("payload"))?;
        Ok(PaymentPayload {
            x402_version: X402_VERSION,
            resource,
            accepted: requirements.clone(),
            payload,
            extensions: None,
        })
    }
}

#[cfg(all(test, feature = "facilitator"))]
mod tests {
    use super::*;
    use alloy::primitives::{address, b256, keccak256};
    use alloy::sol_types::SolStruct;

    // A vector generated with viem's signTypedData; its recovery was checked there too.
    fn vector() -> (TransferWithAuthorization, Eip712Domain) {
        let auth = TransferWithAuthorization {
            from: address!("8d548B243730550eFD52D67A4cA9200EabA26319"),
            to: address!("209693Bc6afc0C5328bA36FaF03C514EF312287C"),
            value: U256::from(10_000u64),
            validAfter: U256::ZERO,
            validBefore: U256::from(1_900_000_000u64),
            nonce: keccak256("nonce-1"),
        };
        let domain = token_domain("USD Coin", "2", 8453, crate::terms::BASE_USDC);
        (auth, domain)
    }

    #[test]
    fn typehash_and_domain_separator_match_base_usdc() {
        assert_eq!(
            TransferWithAuthorization::eip712_type_hash(&vector().0),
            b256!("7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267")
        );
        assert_eq!(
            vector().1.separator(),
            b256!("02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f")
        );
    }

    #[test]
    fn digest_and_signature_match_the_viem_vector() {
        let (auth, domain) = vector();
        let digest = authorization_digest(&auth, &domain);
        assert_eq!(
            digest,
            b256!("19b8103d743bdda81d83d7876904bc0843c22c328ab19e83893ae91e19834012")
        );
        let key = keccak256("x402-test-vector-payer");
        assert_eq!(
            key,
            b256!("f2a44c277c962d1188a7c1abd19c5f93663b78435360a67431d988c9ab5b78e4")
        );
        let signer = PaymentSigner::new(PrivateKeySigner::from_bytes(&key).expect("key"), 8453);
        assert_eq!(signer.address(), auth.from);
        let signed = signer.sign_authorization(auth, &domain).expect("signs");
        let expected: Bytes = "0xc01e538dc131c36f700a9c1ea59680d767cbcd8d2815f12244fdbac6cc5d5db60fe9fb727eceb91145e8abbc37389060f9b512fe5abb25d6f9e94621502d65131c".parse().expect("hex");
        assert_eq!(signed.signature, expected);
        assert_eq!(signed.recover_eoa(digest), Some(signed.authorization.from));
    }

    #[test]
    fn wire_round_trip() {
        let (auth, domain) = vector();
        let signer = PaymentSigner::new(
            PrivateKeySigner::from_bytes(&keccak256("x402-test-vector-payer")).expect("key"),
            8453,
        );
        let signed = signer.sign_authorization(auth, &domain).expect("signs");
        assert_eq!(
            SignedAuthorization::from_wire(&signed.to_wire()),
            Ok(signed)
        );
    }

    #[test]
    fn malformed_fields_are_named() {
        let (auth, domain) = vector();
        let signer = PaymentSigner::new(
            PrivateKeySigner::from_bytes(&keccak256("x402-test-vector-payer")).expect("key"),
            8453,
        );
        let mut wire = signer
            .sign_authorization(auth, &domain)
            .expect("signs")
            .to_wire();
        wire.authorization.value = "1.5".into();
        let err = SignedAuthorization::from_wire(&wire).expect_err("refused");
        assert_eq!(err.field, "authorization.value");
    }
}
