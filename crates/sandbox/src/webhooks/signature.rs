//! `X-Photon-Signature`: the hex-encoded HMAC-SHA256 of the raw request body,
//! keyed with the subscription's shared secret (RustCrypto's `hmac` + `sha2`).

use hmac::{Hmac, Mac as _};
use sha2::Sha256;

/// The signature of `body` under `secret`, lowercase hex.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC accepts keys of every length"),
    };
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::sign;

    #[test]
    fn the_signature_is_rfc_4231_hmac_sha256_in_hex() {
        // RFC 4231, test case 2.
        assert_eq!(
            sign(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
