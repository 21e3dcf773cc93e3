"""Return-routability for the UDP server: no amplification towards spoofed addresses.

UDP has no handshake, so the source address of a datagram proves nothing: anyone can
send a request that claims to come from a victim's address. The server therefore
treats every address as *unproven* until it echoes a **cookie**, a token only someone
who receives at that address can know:

- ``cookie(addr)`` is a keyed BLAKE2s MAC (a per-server random 32-byte key) of the
  address, port and a time bucket (``period`` seconds), 96 bits, base64url: 16
  characters. The server keeps no state per cookie (a flood of fresh addresses costs
  it nothing); a cookie of the current or the previous bucket is valid, so one lives
  between ``period`` and ``2 x period`` seconds, and a reply to a request carrying a
  cookie of the previous bucket carries the current one;
- to an unproven address the server sends at most ``factor`` times the bytes it
  received from that address (:class:`Credit`, kept per address and port with the
  rate-limit bucket). A reply that does not fit is replaced by a short
  ``cookie_required`` reply carrying the cookie, or by nothing when even that does not
  fit. Subscriptions (the one reply that keeps coming) start only with a valid cookie,
  and only a request with a valid cookie renews their lease;
- pushes to a subscriber are capped in bytes per second (:class:`ByteBucket`).

The same idea as DTLS's HelloVerifyRequest cookie (RFC 6347, section 4.2.1) and QUIC's
address validation with its three-times limit before validation (RFC 9000, section 8).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

__all__ = ["COOKIE_CHARS", "ByteBucket", "CookieJar", "Credit"]

#: Length of a cookie on the wire (96-bit MAC, base64url without padding).
COOKIE_CHARS = 16


class CookieJar:
    """Issues and checks the cookies of one server (a random key per server)."""

    def __init__(self, period: float = 60.0, key: bytes | None = None) -> None:
        if not period > 0:
            raise ValueError(f"cookie period must be > 0 s, got {period}")
        self.period = float(period)
        self._key = key if key is not None else secrets.token_bytes(32)

    def _bucket(self, now: float | None = None) -> int:
        return int((time.monotonic() if now is None else now) // self.period)

    def _mac(self, addr: tuple[str, int], bucket: int) -> str:
        msg = f"{addr[0]}|{addr[1]}|{bucket}".encode()
        digest = hashlib.blake2s(msg, key=self._key, digest_size=12).digest()
        return base64.urlsafe_b64encode(digest).decode()

    def issue(self, addr: tuple[str, int], now: float | None = None) -> str:
        """The current cookie of ``addr``."""
        return self._mac(addr, self._bucket(now))

    def check(self, addr: tuple[str, int], cookie: object, now: float | None = None) -> int:
        """0: not valid; 1: valid and current; 2: valid but of the previous bucket (the
        reply should carry the current one)."""
        if not isinstance(cookie, str) or len(cookie) != COOKIE_CHARS:
            return 0
        bucket = self._bucket(now)
        if hmac.compare_digest(cookie, self._mac(addr, bucket)):
            return 1
        if hmac.compare_digest(cookie, self._mac(addr, bucket - 1)):
            return 2
        return 0


@dataclass
class Credit:
    """Bytes received from and sent to one unproven address: ``sent <= factor x
    received`` holds for every address at every moment."""

    received: int = 0
    sent: int = 0

    def room(self, factor: float) -> int:
        return int(factor * self.received) - self.sent


@dataclass
class ByteBucket:
    """A token bucket in bytes: ``rate`` bytes/s, holding at most ``capacity``."""

    rate: float
    capacity: float
    tokens: float
    last: float

    def take(self, n: int, now: float) -> bool:
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if n <= self.tokens:
            self.tokens -= n
            return True
        return False
