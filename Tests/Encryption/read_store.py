#!/usr/bin/env python3
"""An independent reader of an encrypted folder in docsync's embedded store (SPEC §13).

Written from the README alone ("Encryption format" and "Reading an embedded store without
docsync"), with Python's `cryptography` and the standard library's `sqlite3`: it proves the
format is documented completely. Given the recovery key, the directory `docsyncd --backend
file:///DIR` writes and a folder id, it reads the account's key directory, opens the account
keys with the recovery key, checks the account's statement, finds the folder's opaque zone,
opens every epoch of it, every live sealed record and every chunk, and writes the folder's
folders, files and symlinks under OUTDIR. IndependentReaderTests runs it.

    python3 Tests/Encryption/read_store.py --recovery-key KEY --store DIR --folder Documents --out OUTDIR

Exit status: 0 when every item was written; 1 when some could not be (each named on
stderr, the others written); 2 when nothing can be read (a recovery key that is not the
account's, a key directory that does not verify, no such store).
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import sqlite3
import struct
import sys
import urllib.parse
from pathlib import Path

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

SUITE = 1
KEY_ZONE = "~docsync.keys"
TYPES = {0: "Document", 1: "Folder", 2: "Symlink", 3: "Value", 4: "Sealed"}


class Refused(Exception):
    """What cannot be read: the whole store (`fatal`) or one item."""

    def __init__(self, message, fatal=False):
        super().__init__(message)
        self.fatal = fatal


# MARK: primitives (README, "Encryption format": conventions)

def hkdf(ikm, info, length=32, salt=b"docsync/1"):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def string(text):
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def raw_public(private):
    return private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def base32(data):
    return base64.b32encode(data).decode().rstrip("=").lower()


def recovery_bytes(text):
    """The 32 bytes of a recovery key as a person writes it (case, spaces and dashes ignored)."""
    letters = "".join(c for c in text.lower() if c not in "- ")
    try:
        raw = base64.b32decode(letters[:52].upper() + "====")
    except ValueError:
        raw = b""
    if len(letters) != 56 or len(raw) != 32:
        raise Refused("a recovery key is 56 letters and digits (a-z, 2-7) in groups of four", fatal=True)
    if base32(hashlib.sha256(raw).digest()[:3])[:4] != letters[52:]:
        raise Refused("the recovery key has a typo (its checksum does not match)", fatal=True)
    return raw


def unwrap(wrapped, recipient, context):
    """A secret wrapped for the X25519 key `recipient` in `context`."""
    if len(wrapped) < 2 + 32 + 12 + 16 or wrapped[0] != SUITE or wrapped[1] != 1:
        raise Refused("the wrapped key for %s is not one of suite 1 wrapped for a public key" % context)
    ephemeral = wrapped[2:34]
    shared = recipient.exchange(X25519PublicKey.from_public_bytes(ephemeral))
    if shared == bytes(32):
        raise Refused("the wrapped key for %s names a low-order ephemeral key" % context)
    key = hkdf(shared, b"docsync/1 wrap", salt=ephemeral + raw_public(recipient))
    ad = b"docsync/1 wrap" + bytes([SUITE, 1]) + string(context)
    try:
        return AESGCM(key).decrypt(wrapped[34:46], wrapped[46:], ad)
    except InvalidTag:
        raise Refused("the wrapped key for %s does not open with this key" % context)


def verified(statement, signer, kind, subject):
    """The payload of a key statement (README: "Signed statements") once `signer` signed it."""
    try:
        suite, got_kind, got_subject = int(statement["suite"]), int(statement["kind"]), statement["subject"]
        payload, signature = base64.b64decode(statement["payload"]), base64.b64decode(statement["signature"])
    except (KeyError, TypeError, ValueError):
        raise Refused("the key statement for %s is not one" % subject, fatal=True)
    if suite != SUITE or got_kind != kind or got_subject != subject:
        raise Refused("the key statement for %s is of another suite, kind or subject (%r)" % (subject, got_subject), fatal=True)
    try:
        Ed25519PublicKey.from_public_bytes(signer).verify(signature, b"docsync/1 statement" + bytes([suite, kind]) + string(subject) + payload)
    except InvalidSignature:
        raise Refused("the key statement for %s is not signed by the account" % subject, fatal=True)
    return payload


# MARK: the compact record form (README: "Reading an embedded store without docsync")

class Compact:
    def __init__(self, data):
        self.data, self.at = bytes(data), 0

    def take(self, count):
        if self.at + count > len(self.data):
            raise Refused("a compact record is truncated at byte %d" % self.at)
        piece = self.data[self.at:self.at + count]
        self.at += count
        return piece

    def byte(self):
        return self.take(1)[0]

    def varint(self):
        value, shift = 0, 0
        while True:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
            if shift >= 64:
                raise Refused("a compact record's varint is longer than 64 bits")

    def fixed(self):
        return struct.unpack("<q", self.take(8))[0]

    def string(self):
        return self.take(self.varint()).decode("utf-8")

    def present(self):
        flag = self.byte()
        if flag not in (0, 1):
            raise Refused("a compact record's presence byte is %d" % flag)
        return flag == 1

    def asset(self):
        depth, chunk_count, size, digest = self.varint(), self.varint(), self.fixed(), self.take(32)
        entries = [(self.take(32), self.varint()) for _ in range(self.varint())]
        return {"depth": depth, "chunkCount": chunk_count, "size": size, "contentDigest": digest, "entries": entries}


def decode_record(data):
    """A record's fields from its compact form: the format byte says how many fields follow."""
    reader = Compact(data)
    fmt = reader.byte()
    if fmt not in (1, 2, 3, 4):
        raise Refused("a compact record of unknown format %d" % fmt)
    record = {"zone": reader.string(), "recordName": reader.string()}
    kind = reader.byte()
    if kind not in TYPES:
        raise Refused("a compact record of unknown type %d" % kind)
    record["type"] = TYPES[kind]
    record["changeTag"] = reader.string() if reader.present() else None
    record["path"] = reader.string()
    record["size"], record["modified"], record["mode"] = reader.fixed(), reader.fixed(), reader.varint()
    record["contentDigest"] = reader.take(32) if reader.present() else None
    record["asset"] = reader.asset() if reader.present() else None
    record["symlinkTarget"] = reader.string() if reader.present() else None
    record["lastModifiedBy"] = reader.string()
    if fmt >= 2:
        record["value"] = reader.string() if reader.present() else None
    if fmt >= 3:
        record["lastEditorName"] = reader.string() if reader.present() else None
    if fmt >= 4:
        record["sealed"] = reader.take(reader.varint()) if reader.present() else None
    if reader.at != len(reader.data):
        raise Refused("bytes left after a compact record")
    return record


def key_of(record_name):
    """The key a Value's record name encodes (`%XX` for a byte)."""
    out, i, raw = bytearray(), 0, record_name.encode()
    while i < len(raw):
        if raw[i] == ord("%"):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8")


# MARK: the store

class Store:
    def __init__(self, directory):
        path = Path(directory) / "records.sqlite"
        if not path.is_file():
            raise Refused("%s has no records.sqlite: not an embedded store" % directory, fatal=True)
        self.packs = Path(directory) / "packs"
        self.db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(str(path.resolve())), uri=True)

    def records(self, zone):
        """The live records of `zone` by record name (the `record` table: deleted ones are not there)."""
        rows = self.db.execute("SELECT recordName, body FROM record WHERE zone = ? ORDER BY recordName", (zone,))
        return [(name, bytes(body)) for name, body in rows]

    def chunk(self, digest):
        """A stored chunk's bytes, found through the index (`digestKey` is the digest's first 8 bytes)."""
        key = struct.unpack(">q", digest[:8])[0]
        row = self.db.execute("SELECT pack.name, chunk.offset, chunk.length FROM chunk JOIN pack ON pack.id = chunk.pack "
                              "WHERE chunk.digestKey = ? AND chunk.digest = ?", (key, digest)).fetchone()
        if row is None:
            raise Refused("chunk %s is not stored" % digest.hex()[:12])
        name, offset, length = row
        with open(self.packs / name, "rb") as pack:
            pack.seek(offset)
            data = pack.read(length)
        if len(data) != length:
            raise Refused("chunk %s is cut short in packs/%s" % (digest.hex()[:12], name))
        return data


# MARK: the account's keys

def account_keys(store, recovery_text):
    """The account's 100 stored bytes (private keys, generation, zone-name secret), opened with the recovery key."""
    recovery = X25519PrivateKey.from_private_bytes(hkdf(recovery_bytes(recovery_text), b"recovery"))
    directory = {}
    for name, body in store.records(KEY_ZONE):
        record = decode_record(body)
        if record["type"] == "Value" and record.get("value") is not None:
            directory[key_of(name)] = json.loads(record["value"])
    if "account" not in directory:
        raise Refused("the store holds no encrypted account (no key directory %s with an account entry)" % KEY_ZONE, fatal=True)
    statement = directory["account"].get("statement") or {}
    subject = statement.get("subject", "")
    if not subject.startswith("account:") or not subject[8:].isdigit():
        raise Refused("the account's statement names no generation", fatal=True)
    generation = int(subject[8:])
    public = base64.b64decode(statement.get("payload", ""))
    if len(public) != 64:
        raise Refused("the account's statement does not hold 64 public bytes", fatal=True)
    verified(statement, public[32:], 3, subject)
    entry = directory.get("recovery") or {}
    recovery_public = verified(entry.get("statement") or {}, public[32:], 3, "recovery:%d" % generation)
    if recovery_public != raw_public(recovery):
        raise Refused("this recovery key is not the account's (the key directory names another one: a wrong "
                      "or replaced recovery key)", fatal=True)
    try:
        stored = unwrap(base64.b64decode(entry["wrap"]), recovery, "account")
    except (Refused, KeyError, ValueError):
        raise Refused("the account keys wrapped for the recovery key do not open with it", fatal=True)
    if len(stored) != 100:
        raise Refused("the account keys wrapped for the recovery key are %d bytes, not 100" % len(stored), fatal=True)
    agreement = X25519PrivateKey.from_private_bytes(stored[:32])
    signing = Ed25519PrivateKey.from_private_bytes(stored[32:64])
    if raw_public(agreement) + raw_public(signing) != public or struct.unpack(">I", stored[64:68])[0] != generation:
        raise Refused("the account keys the recovery key opens are not the ones the account's statement names", fatal=True)
    return stored, public, directory


def opaque_zone(stored, folder):
    letters = base32(hmac.new(stored[68:100], folder.encode(), hashlib.sha256).digest())[:26]
    return ("~" if folder.startswith("~") else "") + "e." + letters


def epoch_secrets(stored, public, directory, zone):
    """Every epoch secret of `zone`: its `f.ZONE.EPOCH` entries, or epoch 1 derived when there are none."""
    agreement = X25519PrivateKey.from_private_bytes(stored[:32])
    prefix, secrets = "f.%s." % zone, {}
    for key, entry in directory.items():
        if not key.startswith(prefix) or not key[len(prefix):].isdigit():
            continue
        epoch = int(key[len(prefix):])
        context = "folder:%s:%d" % (zone, epoch)
        try:
            secret = unwrap(verified(entry.get("statement") or {}, public[32:], 1, context), agreement, context)
        except Refused as error:
            print("read_store: epoch %d of %s: %s (what it sealed is not read)" % (epoch, zone, error), file=sys.stderr)
            continue
        secrets[epoch] = secret
    if not any(key.startswith(prefix) for key in directory):
        secrets[1] = hkdf(stored[:64], ("folder-epoch:%s:1" % zone).encode())
    return {epoch: {"seal": hkdf(s, b"seal"), "chunk-id": hkdf(s, b"chunk-id")} for epoch, s in secrets.items()}


# MARK: opening records and content

def open_sealed(body, epochs, ad_of):
    """suite ‖ epoch ‖ nonce ‖ AES-256-GCM ‖ tag, with the AD `ad_of(epoch)`; returns (epoch, plaintext)."""
    if len(body) < 1 + 4 + 12 + 16 or body[0] != SUITE:
        raise Refused("sealed with an unknown cipher suite, or truncated")
    epoch = struct.unpack(">I", body[1:5])[0]
    if epoch not in epochs:
        raise Refused("sealed in epoch %d, whose key the key directory does not give" % epoch)
    try:
        return epoch, AESGCM(epochs[epoch]["seal"]).decrypt(body[5:17], body[17:], ad_of(epoch))
    except InvalidTag:
        raise Refused("does not authenticate (changed, or moved from another record, id or zone)")


def open_record(zone, name, wire, epochs):
    if wire["type"] != "Sealed" or wire.get("sealed") is None:
        raise Refused("a plain record (%s) in an encrypted folder's zone" % wire["type"])
    blob = wire["sealed"]
    ad = lambda epoch: (b"docsync/1 record" + bytes([SUITE]) + string(zone) + string(name) + string("Sealed")
                        + struct.pack(">I", epoch))
    _, plaintext = open_sealed(blob, epochs, ad)
    version, record = struct.unpack(">Q", plaintext[:8])[0], decode_record(plaintext[8:])
    if record["recordName"] != name:
        raise Refused("the blob holds the record %s" % record["recordName"])
    inside, visible = record["asset"], wire["asset"]
    if (inside is None) != (visible is None) or inside is not None and (
            visible["contentDigest"] != hashlib.sha256(blob).digest() or visible["depth"] != inside["depth"]
            or visible["chunkCount"] != inside["chunkCount"]
            or [d for d, _ in visible["entries"]] != [d for d, _ in inside["entries"]]):
        raise Refused("the visible chunk list is not the one sealed with the record")
    record["version"] = version
    return record


def content(store, zone, asset, epochs):
    """A document's bytes: the manifest tree followed `depth` levels down, then each chunk opened."""
    level = asset["entries"]
    for _ in range(asset["depth"]):
        below = []
        for digest, length in level:
            node = store.chunk(digest)
            if len(node) != length or hashlib.sha256(node).digest() != digest:
                raise Refused("manifest node %s does not match its id" % digest.hex()[:12])
            if node[:4] != b"DSM1" or (len(node) - 4) % 36 or len(node) == 4:
                raise Refused("manifest node %s is malformed" % digest.hex()[:12])
            below += [(node[i:i + 32], struct.unpack(">I", node[i + 32:i + 36])[0]) for i in range(4, len(node), 36)]
        level = below
    pieces = []
    for chunk_id, length in level:
        epoch, piece = open_sealed(store.chunk(chunk_id), epochs, lambda epoch: (
            b"docsync/1 chunk" + bytes([SUITE]) + string(zone) + struct.pack(">I", epoch) + chunk_id))
        if not hmac.compare_digest(hmac.new(epochs[epoch]["chunk-id"], piece, hashlib.sha256).digest(), chunk_id):
            raise Refused("chunk %s holds content whose MAC is another id" % chunk_id.hex()[:12])
        if len(piece) != length:
            raise Refused("chunk %s is not the length its list says" % chunk_id.hex()[:12])
        pieces.append(piece)
    data = b"".join(pieces)
    if len(level) != asset["chunkCount"] or len(data) != asset["size"] or hashlib.sha256(data).digest() != asset["contentDigest"]:
        raise Refused("the content is not the size, chunk count and SHA-256 the record sealed")
    return data


def safe_path(path):
    parts = path.split("/")
    if not path or path.startswith("/") or "\0" in path or any(p in ("", ".", "..") for p in parts):
        raise Refused("the path %r is not a relative path" % path)
    return parts


# MARK: writing the folder

def main():
    parser = argparse.ArgumentParser(description="Read an encrypted folder out of docsync's embedded store.")
    parser.add_argument("--recovery-key", required=True)
    parser.add_argument("--store", required=True, help="the embedded store's directory (file:///DIR)")
    parser.add_argument("--folder", required=True, help="the folder id, e.g. Documents")
    parser.add_argument("--out", required=True, help="where the folder's items are written")
    args = parser.parse_args()
    failures = 0

    def failed(what, error):
        nonlocal failures
        failures += 1
        print("read_store: %s: %s" % (what, error), file=sys.stderr)

    try:
        store = Store(args.store)
        stored, public, directory = account_keys(store, args.recovery_key)
        zone = opaque_zone(stored, args.folder)
        epochs = epoch_secrets(stored, public, directory, zone)
        rows = store.records(zone)
    except Refused as error:
        print("read_store: cannot read the folder %s: %s" % (args.folder, error), file=sys.stderr)
        return 2
    except sqlite3.Error as error:
        print("read_store: cannot read the store's database: %s" % error, file=sys.stderr)
        return 2

    items = []
    for name, body in rows:
        try:
            record = open_record(zone, name, decode_record(body), epochs)
            if record["zone"] != args.folder:
                raise Refused("the record is sealed as one of the folder %r" % record["zone"])
            items.append((safe_path(record["path"]), record))
        except (Refused, UnicodeDecodeError) as error:
            failed("record %s" % name, error)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    folders, written = [], 0
    for parts, record in sorted(items, key=lambda item: (item[1]["type"] != "Folder", item[0])):
        target = out.joinpath(*parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if record["type"] == "Folder":
                target.mkdir(exist_ok=True)
                folders.append((parts, record))
                written += 1
                continue
            if record["type"] == "Symlink":
                os.symlink(record["symlinkTarget"] or "", target)
                os.utime(target, ns=(record["modified"],) * 2, follow_symlinks=False)
            elif record["type"] == "Document":
                data = b"" if record["asset"] is None else content(store, zone, record["asset"], epochs)
                target.write_bytes(data)
                os.chmod(target, record["mode"] & 0o7777)
                os.utime(target, ns=(record["modified"],) * 2)
            else:
                raise Refused("a %s record has no place in a folder" % record["type"])
            written += 1
        except (Refused, OSError) as error:
            failed(record["path"], error)
    for parts, record in sorted(folders, key=lambda item: -len(item[0])):  # deepest first
        target = out.joinpath(*parts)
        os.chmod(target, record["mode"] & 0o7777)
        os.utime(target, ns=(record["modified"],) * 2)
    print("read_store: %d items of %s written to %s%s" % (written, args.folder, out,
                                                         ", %d could not be read" % failures if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
