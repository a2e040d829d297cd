#!/usr/bin/env python3
"""Known-answer vectors for docsync's encryption format (SPEC §13), computed with the
`cryptography` package from the format as the README describes it — an implementation
independent of the Swift one. Writes Tests/DocSyncCoreTests/Fixtures/encryption-vectors.json;
EncryptionKnownAnswerTests checks that the Swift code produces and opens exactly these bytes.

    python3 Tests/Encryption/known_answers.py          # rewrite the vectors
    python3 Tests/Encryption/known_answers.py --check  # exit 1 if the file differs
"""
import base64
import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests" / "DocSyncCoreTests" / "Fixtures"
SUITE = 1


def hkdf(ikm, info, length=32, salt=b"docsync/1"):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def string(text):
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def raw_public(key):
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def base32(data):
    return base64.b32encode(data).decode().rstrip("=").lower()


def pattern(start, count):
    return bytes((start + i) % 256 for i in range(count))


def main():
    secret, epoch = pattern(0x00, 32), 7
    seal_key, id_key, chunker_key = hkdf(secret, b"seal"), hkdf(secret, b"chunk-id"), hkdf(secret, b"chunker")
    gear = hkdf(chunker_key, b"gear", 2048)
    zone = "e.abcdefghijklmnopqrstuvwxyz"

    # A chunk: id, body, body digest.
    content = b"docsync known answer\n" * 3
    chunk_id = hmac.new(id_key, content, hashlib.sha256).digest()
    chunk_nonce = pattern(0xA0, 12)
    chunk_ad = b"docsync/1 chunk" + bytes([SUITE]) + string(zone) + struct.pack(">I", epoch) + chunk_id
    body = bytes([SUITE]) + struct.pack(">I", epoch) + chunk_nonce + AESGCM(seal_key).encrypt(chunk_nonce, content, chunk_ad)

    # A record: the golden compact form of the fixture "document", version 42.
    compact = (FIXTURES / "record-document.compact").read_bytes()
    record_name, visible_type, version = "0190a1b2c3d4e5f60123456789abcdef", "Sealed", 42
    record_nonce = pattern(0xB0, 12)
    record_ad = (b"docsync/1 record" + bytes([SUITE]) + string(zone) + string(record_name) + string(visible_type)
                 + struct.pack(">I", epoch))
    record_blob = (bytes([SUITE]) + struct.pack(">I", epoch) + record_nonce
                   + AESGCM(seal_key).encrypt(record_nonce, struct.pack(">Q", version) + compact, record_ad))

    # Key pairs: an account (X25519 0x40…, Ed25519 0x20…) and an ephemeral key.
    agreement = X25519PrivateKey.from_private_bytes(pattern(0x40, 32))
    signing = Ed25519PrivateKey.from_private_bytes(pattern(0x20, 32))
    public_keys = raw_public(agreement) + raw_public(signing)
    digest = hashlib.sha256(b"docsync/1 fingerprint" + public_keys).digest()
    digits = "%016d" % (int.from_bytes(digest[:8], "big") % 10**16)
    fingerprint = " ".join(digits[i:i + 4] for i in range(0, 16, 4))

    # A folder secret wrapped for the account's public key.
    ephemeral = X25519PrivateKey.from_private_bytes(pattern(0x60, 32))
    shared = ephemeral.exchange(agreement.public_key())
    wrap_key = hkdf(shared, b"docsync/1 wrap", salt=raw_public(ephemeral) + raw_public(agreement))
    context = "folder:%s:%d:alice" % (zone, epoch)
    wrap_nonce = pattern(0xC0, 12)
    wrap_ad = b"docsync/1 wrap" + bytes([SUITE, 1]) + string(context)
    wrapped = bytes([SUITE, 1]) + raw_public(ephemeral) + wrap_nonce + AESGCM(wrap_key).encrypt(wrap_nonce, secret, wrap_ad)

    # The account's private keys wrapped for a recovery key's X25519 key (HKDF of its bytes),
    # and the key's text.
    recovery = pattern(0x80, 32)
    account_private = pattern(0x40, 32) + pattern(0x20, 32)
    recovery_agreement = X25519PrivateKey.from_private_bytes(hkdf(recovery, b"recovery"))
    recovery_ephemeral = X25519PrivateKey.from_private_bytes(pattern(0x70, 32))
    recovery_key = hkdf(recovery_ephemeral.exchange(recovery_agreement.public_key()), b"docsync/1 wrap",
                        salt=raw_public(recovery_ephemeral) + raw_public(recovery_agreement))
    recovery_nonce = pattern(0xD0, 12)
    recovery_ad = b"docsync/1 wrap" + bytes([SUITE, 1]) + string("account")
    recovery_wrapped = (bytes([SUITE, 1]) + raw_public(recovery_ephemeral) + recovery_nonce
                        + AESGCM(recovery_key).encrypt(recovery_nonce, account_private, recovery_ad))
    letters = base32(recovery)[:52] + base32(hashlib.sha256(recovery).digest()[:3])[:4]
    recovery_text = "-".join(letters[i:i + 4] for i in range(0, len(letters), 4))

    # A signed statement: the wrapped folder key, for alice.
    subject = context
    signed = b"docsync/1 statement" + bytes([SUITE, 1]) + string(subject) + wrapped
    signature = signing.sign(signed)

    # Opaque zone names of the account.
    naming = hkdf(account_private, b"zone-name")
    def opaque(name):
        letters = base32(hmac.new(naming, name.encode(), hashlib.sha256).digest())[:26]
        return ("~" if name.startswith("~") else "") + "e." + letters

    vectors = {
        "secret": secret.hex(), "epoch": epoch, "zone": zone,
        "gear": {"first": gear[:8].hex(), "last": gear[-8:].hex()},
        "chunk": {"content": content.hex(), "id": chunk_id.hex(), "nonce": chunk_nonce.hex(), "body": body.hex(),
                  "bodyDigest": hashlib.sha256(body).hexdigest()},
        "record": {"fixture": "document", "recordName": record_name, "visibleType": visible_type, "version": version,
                   "nonce": record_nonce.hex(), "blob": record_blob.hex()},
        "keys": {"agreementPrivate": pattern(0x40, 32).hex(), "signingPrivate": pattern(0x20, 32).hex(),
                 "public": public_keys.hex(), "fingerprint": fingerprint},
        "wrap": {"ephemeralPrivate": pattern(0x60, 32).hex(), "context": context, "nonce": wrap_nonce.hex(), "wrapped": wrapped.hex()},
        "recovery": {"key": recovery.hex(), "text": recovery_text, "public": raw_public(recovery_agreement).hex(),
                     "context": "account", "ephemeralPrivate": pattern(0x70, 32).hex(), "nonce": recovery_nonce.hex(),
                     "wrapped": recovery_wrapped.hex()},
        "statement": {"kind": 1, "subject": subject, "payload": wrapped.hex(), "signature": signature.hex()},
        "zoneNames": {name: opaque(name) for name in ["Documents", "Taxes 2026", "~org.example.editor"]},
    }
    text = json.dumps(vectors, indent=2, sort_keys=True) + "\n"
    target = FIXTURES / "encryption-vectors.json"
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == text else 1)
    target.write_text(text)


if __name__ == "__main__":
    main()
