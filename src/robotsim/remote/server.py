"""The UDP remote-control server: steps a simulation in real time and serves requests.

One thread does everything, in this order, forever: take the simulation steps that are
due (``rate`` x real time), push state to subscribers that are due, then read and answer
datagrams until the next step is due. So requests are never served while a step runs
(no locks), and requests can never starve the simulation: a flood is read in between
steps and throttled per sender (a token bucket) before any JSON is parsed.

If the simulation itself is slower than real time, the backlog is dropped after 0.25 s
(counted in ``stats.overruns``) instead of spiralling.

Abuse limits (see ``docs/protocol.md`` and ``docs/security.md``): a per-sender and a
global token bucket below what the server can answer (``rate_limited`` replies); an
address that has not echoed a cookie gets at most 3 x the bytes it sent, in total
(``remote/guard.py``: no amplification towards a spoofed address); subscriptions start
only with a valid cookie, at most a few per host, are leases that only a request with
a valid cookie renews, and their pushes are capped in bytes per second; a long
``step`` runs in slices with other clients served in between; absurd control values
are refused.
"""

from __future__ import annotations

import math
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from robotsim.errors import InputError, RobotsimError
from robotsim.remote.guard import ByteBucket, CookieJar, Credit
from robotsim.remote.protocol import (
    MAX_DATAGRAM,
    MAX_DEPTH,
    OPS,
    PROTOCOL,
    ProtocolError,
    Request,
    decode_request,
    encode,
    error_reply,
    get_bool,
    get_int,
    get_name_map,
    get_number,
    get_str,
    get_str_list,
)

if TYPE_CHECKING:
    from robotsim.remote.target import SimulationTarget

__all__ = ["RemoteServer", "ServerLimits", "parse_address"]

Address = tuple[str, int]


def parse_address(text: str, default_port: int = 9870) -> Address:
    """``"127.0.0.1:9870"``, ``":9870"``, ``"0.0.0.0"`` -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port)
    host = host.strip("[]") or "127.0.0.1"
    try:
        p = int(port)
    except ValueError:
        raise InputError(f"--udp: bad port in {text!r}; expected HOST:PORT") from None
    if not 0 <= p <= 65535:
        raise InputError(f"--udp: port {p} is outside 0..65535")
    return host, p


@dataclass(frozen=True)
class ServerLimits:
    """Protection limits (all per server).

    ``sender_rate``/``sender_burst``: token bucket per (host, port): sustained
    requests/s and burst size; ``global_rate``/``global_burst``: the same for all
    senders together. Both sit below what one server thread answers (about 5,000
    requests/s on the 2-core reference machine, ``robotsim bench remote``); excess
    datagrams are dropped and counted, and one ``rate_limited`` error reply per second
    tells the sender. ``max_datagram``: bytes. ``max_subscribers``,
    ``max_subscription_rate`` (Hz), ``lease`` (s: a subscription ends after this long
    without a request from its address), ``max_step`` (steps per ``step`` request),
    ``step_slice`` (steps run between two looks at the socket), ``amplification``
    (bytes sent to an address that has not echoed a cookie are at most this many times
    the bytes received from it, in total), ``subscribers_per_host`` (subscriptions from
    one IP address), ``push_bytes_per_s`` (state pushes to one subscriber, bytes/s;
    pushes beyond it are skipped), ``cookie_period`` (s: a cookie is valid for one to
    two periods), ``max_control`` (largest magnitude of a joint target, wheel speed or
    base velocity, SI units).
    """

    sender_rate: float = 1_000.0
    sender_burst: float = 200.0
    global_rate: float = 3_000.0
    global_burst: float = 600.0
    max_datagram: int = MAX_DATAGRAM
    max_subscribers: int = 32
    max_subscription_rate: float = 1000.0
    lease: float = 5.0
    max_lease: float = 30.0
    max_step: int = 10_000
    step_slice: int = 100
    max_pending_steps: int = 8
    amplification: float = 3.0
    subscribers_per_host: int = 4
    push_bytes_per_s: float = 1.0e6
    cookie_period: float = 60.0
    max_control: float = 1.0e4
    max_senders: int = 4096


@dataclass
class _Sub:
    period: float
    next_time: float
    robots: list[str] | None
    links: bool = False
    seq: int = 0
    expires: float = math.inf
    lease: float = 5.0
    push: ByteBucket | None = None


@dataclass
class _StepJob:
    """A ``step`` too long to run at once: done ``step_slice`` steps at a time."""

    addr: Address
    rid: int | str | None
    total: int
    left: int
    proven: bool = False


_DEFERRED: dict[str, Any] = {}  # a handler's reply that is sent later (a long step)


class _NeedCookie(Exception):
    """A stream (subscribe) asked for without the address's cookie in the request."""


@dataclass
class _Bucket:
    tokens: float
    last: float
    warned: float = -math.inf
    credit: Credit = field(default_factory=Credit)
    proven_until: float = -math.inf  # echoed a valid cookie: replies of any size until then


@dataclass
class ServerStats:
    received: int = 0
    replied: int = 0
    errors: int = 0
    malformed: int = 0
    oversized: int = 0
    rate_limited: int = 0
    too_large: int = 0
    cookie_required: int = 0
    unanswered: int = 0
    push_throttled: int = 0
    expired: int = 0
    send_failures: int = 0
    pushed: int = 0
    steps: int = 0
    overruns: int = 0
    faults: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, int]:
        d = {k: v for k, v in self.__dict__.items() if k != "extra"}
        d.update(self.extra)
        return d


class RemoteServer:
    """Serve ``target`` over UDP (see the module doc and docs/protocol.md).

    Args:
        target: the simulation (a :class:`~robotsim.remote.target.SimulationTarget`).
        host, port: where to bind; 127.0.0.1 unless told otherwise; port 0 picks one.
        rate: simulated seconds per wall second (1 = real time).
        limits: protection limits.
        on_step: called after every step with the target (e.g. a recorder).
        on_fault: called with (simulated time, message) when stepping fails.
    """

    def __init__(
        self,
        target: SimulationTarget,
        host: str = "127.0.0.1",
        port: int = 9870,
        rate: float = 1.0,
        limits: ServerLimits | None = None,
        on_step: Callable[[SimulationTarget], None] | None = None,
        on_fault: Callable[[float, str], None] | None = None,
    ) -> None:
        if not (rate > 0 and math.isfinite(rate)):
            raise InputError(f"--rate must be a positive number, got {rate}")
        self.target = target
        self.rate = float(rate)
        self.limits = limits or ServerLimits()
        self.on_step = on_step
        self.on_fault = on_fault
        self.stats = ServerStats()
        self.paused = False
        self.fault: str | None = None
        self._paused_by_fault = False
        self._subs: dict[Address, _Sub] = {}
        self._buckets: dict[Address, _Bucket] = {}
        self.cookies = CookieJar(self.limits.cookie_period)
        from robotsim.remote.sensor_wire import WireCache

        self._wire = WireCache()  # encoded sensor readings whose chunks clients fetch
        self._proven = False  # the request being handled carried a valid cookie
        self._global = _Bucket(self.limits.global_burst, time.monotonic())
        self._jobs: deque[_StepJob] = deque()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_step = 0.0
        self._wall0 = 0.0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
            self.sock.bind((host, port))
        except OSError as exc:
            self.sock.close()
            raise InputError(f"--udp: cannot bind {host}:{port}: {exc.strerror}") from None
        self.sock.setblocking(False)
        self._handlers: dict[str, Callable[[Request, Address], dict[str, Any]]] = {
            op: getattr(self, f"_op_{op}") for op in OPS
        }

    @property
    def address(self) -> Address:
        host, port = self.sock.getsockname()[:2]
        return str(host), int(port)

    # -- running ----------------------------------------------------------------------
    def serve(self, duration: float | None = None) -> None:
        """Run in this thread until :meth:`stop` (or ``duration`` wall seconds)."""
        end = math.inf if duration is None else time.monotonic() + duration
        self._next_step = self._wall0 = time.monotonic()
        dt_wall = self.target.dt / self.rate
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                if now >= end:
                    break
                if self._jobs:  # a long step: one slice, then whatever else is waiting
                    self._step_slice()
                    now = time.monotonic()
                    if self._subs:
                        self._publish(now)
                    self._serve_until(now, max_datagrams=64)
                    continue
                if not self.paused:
                    n = 0
                    while self._next_step <= now and not self.paused:
                        try:
                            self._step(1)
                        except Exception:  # faulted: paused, reported to every client
                            break
                        self._next_step += dt_wall
                        n += 1
                        if n % 16 == 0:  # behind: keep answering while catching up
                            self._serve_until(0.0, max_datagrams=32)
                            now = time.monotonic()
                    if now - self._next_step > 0.25:
                        self.stats.overruns += 1
                        self._next_step = now
                if self._subs:
                    self._publish(now)
                deadline = self._next_step if not self.paused else now + 0.02
                if self._subs:
                    deadline = min(deadline, min(s.next_time for s in self._subs.values()))
                self._serve_until(min(deadline, end))
        finally:
            self._stop.clear()

    def start(self) -> RemoteServer:
        """Serve on a background thread."""
        self._thread = threading.Thread(target=self.serve, name="robotsim-udp", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        self.stop()
        self.sock.close()

    def __enter__(self) -> RemoteServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _step(self, n: int) -> None:
        """Step; an error (divergence, a failed recorder, a bug in a target) pauses the
        simulation and is kept in :attr:`fault` until a reset, then re-raised."""
        try:
            for _ in range(n):
                self.target.step(1)
                self.stats.steps += 1
                if self.on_step is not None:
                    self.on_step(self.target)
        except Exception as exc:
            self.fault = f"{type(exc).__name__}: {exc}"
            self._paused_by_fault = not self.paused
            self.paused = True
            self.stats.faults += 1
            if self.on_fault is not None:
                try:
                    self.on_fault(self.target.time, self.fault)
                except Exception:  # a failing observer must not hide the fault
                    pass
            raise

    def _step_slice(self) -> None:
        job = self._jobs[0]
        n = min(job.left, self.limits.step_slice)
        try:
            self._step(n)
        except Exception:  # the fault is kept and reported; fail every waiting step
            for j in self._jobs:
                self._reply(error_reply(j.rid, f"step: {self.fault}"), j.addr, j.proven)
            self.stats.errors += len(self._jobs)
            self._jobs.clear()
            return
        job.left -= n
        if job.left == 0:
            self._jobs.popleft()
            payload = encode({"id": job.rid, "ok": True, "t": self.target.time, "steps": job.total})
            if self._reply(payload, job.addr, job.proven):
                self.stats.replied += 1

    # -- the socket -------------------------------------------------------------------
    def _serve_until(self, deadline: float, max_datagrams: int = 1 << 30) -> None:
        sock = self.sock
        handled = 0
        while handled < max_datagrams:
            try:
                data, addr = sock.recvfrom(65536)
            except BlockingIOError:
                wait = deadline - time.monotonic()
                if wait <= 0 or self._stop.is_set():
                    return
                select.select([sock], [], [], min(wait, 0.05))
                continue
            except OSError:  # e.g. ICMP errors reported on the socket: keep serving
                self.stats.send_failures += 1
                continue
            handled += 1
            self._datagram(data, addr)
            if handled % 32 == 0 and time.monotonic() >= deadline:
                return

    def _send(self, payload: bytes, addr: Address) -> bool:
        try:
            self.sock.sendto(payload, addr)
            return True
        except OSError:  # too large, no buffer space, unreachable...
            self.stats.send_failures += 1
            return False

    def _reply(self, payload: bytes, addr: Address, proven: bool, rid: Any = None) -> bool:
        """Send ``payload`` to ``addr``; to an address that has not proved it receives
        (no valid cookie), only within its credit (``amplification`` x the bytes it
        sent): a reply that does not fit becomes a ``cookie_required`` reply, or
        nothing when even that does not fit. True when ``payload`` itself was sent."""
        if proven:
            return self._send(payload, addr)
        b = self._buckets.get(addr)
        if b is None:  # forgotten since (the table of senders was full): no credit
            self.stats.unanswered += 1
            return False
        if len(payload) <= b.credit.room(self.limits.amplification):
            if self._send(payload, addr):
                b.credit.sent += len(payload)
                return True
            return False
        self._cookie_required(b, addr, rid)
        return False

    def _cookie_required(self, b: _Bucket, addr: Address, rid: Any) -> None:
        """Tell an unproven address its cookie, in the longest form its credit allows
        (nothing when even the shortest does not fit)."""
        cookie = self.cookies.issue(addr)
        short = {"id": rid, "ok": False, "code": "cookie_required", "cookie": cookie}
        long = dict(short)
        long["error"] = (
            "this reply goes only to an address that proved it receives: send the "
            f'request again with "cookie": "{cookie}"'
        )
        shortest = {"ok": False, "cookie": cookie}  # 40 bytes: any request of 14 fits it
        if rid is not None:
            shortest = {"id": rid, **shortest}
        for candidate in (long, short, shortest):
            data = encode(candidate)
            if len(data) <= b.credit.room(self.limits.amplification):
                if self._send(data, addr):
                    b.credit.sent += len(data)
                    self.stats.cookie_required += 1
                return
        self.stats.unanswered += 1

    def _sender(self, addr: Address, now: float, size: int) -> _Bucket:
        """The bookkeeping of one (host, port): its rate bucket and its byte credit."""
        lim = self.limits
        b = self._buckets.get(addr)
        if b is None:
            if len(self._buckets) >= lim.max_senders:
                oldest = sorted(self._buckets.items(), key=lambda kv: kv[1].last)
                for a, _ in oldest[: len(oldest) // 2]:
                    del self._buckets[a]
            b = self._buckets[addr] = _Bucket(lim.sender_burst, now)
        else:
            b.tokens = min(lim.sender_burst, b.tokens + (now - b.last) * lim.sender_rate)
            b.last = now
        b.credit.received += size
        return b

    def _allow(self, b: _Bucket, addr: Address, now: float) -> bool:
        lim = self.limits
        g = self._global
        g.tokens = min(lim.global_burst, g.tokens + (now - g.last) * lim.global_rate)
        g.last = now
        if b.tokens >= 1.0 and g.tokens >= 1.0:
            b.tokens -= 1.0
            g.tokens -= 1.0
            return True
        self.stats.rate_limited += 1
        if now - b.warned >= 1.0:
            b.warned = now
            which = (
                f"more than {lim.sender_rate:g} requests/s from this sender"
                if b.tokens < 1.0
                else f"more than {lim.global_rate:g} requests/s from all senders together"
            )
            self._reply(
                encode(
                    {
                        "id": None,
                        "ok": False,
                        "code": "rate_limited",
                        "error": f"rate_limited: {which}; excess dropped, slow down",
                    }
                ),
                addr,
                proven=False,
            )
        return False

    def _datagram(self, data: bytes, addr: Address) -> None:
        self.stats.received += 1
        now = time.monotonic()
        if not self._allow(self._sender(addr, now, len(data)), addr, now):
            return
        if len(data) > self.limits.max_datagram:
            self.stats.oversized += 1
            self.stats.errors += 1
            self._reply(
                error_reply(
                    None,
                    f"datagram of {len(data)} bytes exceeds the "
                    f"{self.limits.max_datagram}-byte limit",
                ),
                addr,
                proven=False,
            )
            return
        rid = None
        bucket = self._buckets[addr]
        proof = 1 if now < bucket.proven_until else 0  # echoed a cookie a moment ago
        self._proven = False
        try:
            req = decode_request(data)
            rid = req.id
            cookie = self.cookies.check(addr, req.body.get("cookie"), now)
            if cookie:
                proof = cookie
                bucket.proven_until = now + self.cookies.period
                sub = self._subs.get(addr)
                if sub is not None:  # only a request with the cookie renews the lease
                    sub.expires = now + sub.lease
            self._proven = cookie > 0
            reply = self._handlers[req.op](req, addr)
            if reply is _DEFERRED:
                return  # answered when the work is done
        except _NeedCookie:  # never a stream to an address that did not prove it receives
            self.stats.errors += 1
            self._cookie_required(bucket, addr, rid)
            return
        except RobotsimError as exc:
            if isinstance(exc, ProtocolError) and rid is None:
                rid = exc.request_id
                if exc.malformed:
                    self.stats.malformed += 1
            self.stats.errors += 1
            self._answer({"id": rid, "ok": False, "error": str(exc)}, addr, proof)
            return
        except Exception as exc:  # a bug in a target must not kill the server
            self.stats.errors += 1
            msg = f"internal error: {type(exc).__name__}: {exc}"
            self._answer({"id": rid, "ok": False, "error": msg}, addr, proof)
            return
        out = {"id": rid, "ok": True}
        out.update(reply)
        if self._answer(out, addr, proof):
            self.stats.replied += 1

    def _answer(self, out: dict[str, Any], addr: Address, proof: int) -> bool:
        """Encode and send one reply (a fresh cookie added when the request's was of
        the previous period)."""
        rid = out.get("id")
        if proof == 2:
            out["cookie"] = self.cookies.issue(addr)
        try:
            payload = encode(out)
        except ValueError as exc:  # NaN in a state: report instead of sending bad JSON
            self.stats.errors += 1
            return self._reply(error_reply(rid, f"reply not encodable: {exc}"), addr, proof > 0)
        if len(payload) > 65000:
            self.stats.errors += 1
            self.stats.too_large += 1
            self._reply(
                error_reply(
                    rid,
                    f"reply of {len(payload)} bytes is too large for a "
                    "datagram; ask for fewer robots",
                ),
                addr,
                proof > 0,
            )
            return False
        return self._reply(payload, addr, proof > 0, rid)

    def _publish(self, now: float) -> None:
        for addr, sub in list(self._subs.items()):
            if now >= sub.expires:  # the client stopped renewing: it is gone
                del self._subs[addr]
                self.stats.expired += 1
                continue
            if now < sub.next_time:
                continue
            sub.next_time = max(sub.next_time + sub.period, now)
            sub.seq += 1
            try:
                body = self._state_body(sub.robots, sub.links)
                payload = encode({"event": "state", "seq": sub.seq, **body})
            except (RobotsimError, ValueError):
                del self._subs[addr]
                continue
            if sub.push is not None and not sub.push.take(len(payload), now):
                self.stats.push_throttled += 1  # over the byte rate: this frame skipped
                continue
            if self._send(payload, addr):
                self.stats.pushed += 1

    # -- operations -------------------------------------------------------------------
    def _robot_name(self, req: Request) -> str:
        robots = self.target.robots()
        if "robot" not in req.body and len(robots) == 1:
            return next(iter(robots))
        if "robot" not in req.body:
            raise ProtocolError(f"{req.op}: missing field 'robot'; valid: {', '.join(robots)}")
        name = get_str(req.body, req.op, "robot")
        if name not in robots:
            raise ProtocolError(f"{req.op}: unknown robot {name!r}; valid: {', '.join(robots)}")
        return name

    def _state_body(self, robots: list[str] | None, links: bool = False) -> dict[str, Any]:
        if robots is not None:
            valid = self.target.robots()
            for r in robots:
                if r not in valid:
                    raise ProtocolError(f"unknown robot {r!r}; valid: {', '.join(valid)}")
        states = self.target.state(robots)
        if links:
            from robotsim.remote.target import pose7

            for name, entry in states.items():
                entry["links"] = {lk: pose7(T) for lk, T in self.target.link_poses(name).items()}
        return {"t": self.target.time, "paused": self.paused, "fault": self.fault, "robots": states}

    def _op_ping(self, req: Request, addr: Address) -> dict[str, Any]:
        return {"t": self.target.time, "fault": self.fault}

    def _op_info(self, req: Request, addr: Address) -> dict[str, Any]:
        lim = self.limits
        return {
            "protocol": PROTOCOL,
            "ops": list(OPS),
            "dt": self.target.dt,
            "rate": self.rate,
            "t": self.target.time,
            "paused": self.paused,
            "fault": self.fault,
            "robots": {n: i.to_json() for n, i in self.target.robots().items()},
            "limits": {
                "max_datagram": lim.max_datagram,
                "sender_rate": lim.sender_rate,
                "sender_burst": lim.sender_burst,
                "max_step": lim.max_step,
                "max_subscription_rate": lim.max_subscription_rate,
                "global_rate": lim.global_rate,
                "lease": lim.lease,
                "amplification": lim.amplification,
                "subscribers_per_host": lim.subscribers_per_host,
                "push_bytes_per_s": lim.push_bytes_per_s,
                "cookie_period": lim.cookie_period,
                "max_control": lim.max_control,
                "max_depth": MAX_DEPTH,
            },
        }

    def _op_state(self, req: Request, addr: Address) -> dict[str, Any]:
        robots = get_str_list(req.body, req.op, "robots")
        return self._state_body(robots, get_bool(req.body, req.op, "links", False))

    def _check_controls(self, op: str, key: str, values: dict[str, float]) -> None:
        """Refuse magnitudes no robot can follow (MuJoCo silently zeroes a control
        above 1e10, and an absurd target is always a client bug)."""
        cap = self.limits.max_control
        for name, v in values.items():
            if not -cap <= v <= cap:
                raise ProtocolError(
                    f"{op}: {key}.{name} = {v:g} is outside [{-cap:g}, {cap:g}] "
                    "(SI units: rad, m, rad/s, m/s)"
                )

    def _op_set_joints(self, req: Request, addr: Address) -> dict[str, Any]:
        robot = self._robot_name(req)
        targets = get_name_map(req.body, req.op, "joints")
        self._check_controls(req.op, "joints", targets)
        valid = self.target.robots()[robot].joints
        for n in targets:
            if n not in valid:
                raise ProtocolError(
                    f"set_joints: unknown joint {n!r} of robot {robot!r}; valid: {', '.join(valid)}"
                )
        self.target.set_joint_targets(robot, targets)
        return {"t": self.target.time}

    def _op_set_base_velocity(self, req: Request, addr: Address) -> dict[str, Any]:
        robot = self._robot_name(req)
        if not self.target.robots()[robot].mobile:
            raise ProtocolError(f"set_base_velocity: robot {robot!r} has a fixed base")
        b, op = req.body, req.op
        cap = self.limits.max_control
        self.target.set_base_velocity(
            robot,
            get_number(b, op, "vx", 0.0, -cap, cap),
            get_number(b, op, "vy", 0.0, -cap, cap),
            get_number(b, op, "omega", 0.0, -cap, cap),
        )
        return {"t": self.target.time}

    def _op_set_wheels(self, req: Request, addr: Address) -> dict[str, Any]:
        robot = self._robot_name(req)
        speeds = get_name_map(req.body, req.op, "speeds")
        self._check_controls(req.op, "speeds", speeds)
        valid = self.target.robots()[robot].wheels
        for n in speeds:
            if n not in valid:
                raise ProtocolError(
                    f"set_wheels: unknown wheel {n!r} of robot {robot!r}; "
                    f"valid: {', '.join(valid) or '(none)'}"
                )
        self.target.set_wheel_speeds(robot, speeds)
        return {"t": self.target.time}

    def _op_pause(self, req: Request, addr: Address) -> dict[str, Any]:
        self.paused = True
        self._paused_by_fault = False  # stays paused after a reset
        return {"t": self.target.time, "paused": True}

    def _check_fault(self, op: str) -> None:
        if self.fault is not None:
            raise ProtocolError(
                f"{op}: the simulation stopped on an error ({self.fault}); send 'reset' first"
            )

    def _op_resume(self, req: Request, addr: Address) -> dict[str, Any]:
        self._check_fault("resume")
        if self._jobs:
            raise ProtocolError("resume: a step request is still running; try again")
        if self.paused:
            self.paused = False
            self._next_step = time.monotonic()
        return {"t": self.target.time, "paused": False}

    def _op_reset(self, req: Request, addr: Address) -> dict[str, Any]:
        for j in self._jobs:
            self._send(error_reply(j.rid, "step: cancelled by a reset"), j.addr)
        self._jobs.clear()
        self.target.reset()
        if self.fault is not None:  # a reset clears the error (and runs again if it ran)
            self.fault = None
            self.paused = not self._paused_by_fault
        self._next_step = time.monotonic()
        return {"t": self.target.time, "paused": self.paused}

    def _op_step(self, req: Request, addr: Address) -> dict[str, Any]:
        self._check_fault("step")
        if not self.paused:
            raise ProtocolError("step: the simulation is running; send 'pause' first")
        n = get_int(req.body, req.op, "n", 1, 1, self.limits.max_step)
        if n <= self.limits.step_slice and not self._jobs:
            self._step(n)
            return {"t": self.target.time, "steps": n}
        if len(self._jobs) >= self.limits.max_pending_steps:
            raise ProtocolError(
                f"step: {len(self._jobs)} step requests are already running; try again"
            )
        proven = time.monotonic() < self._buckets[addr].proven_until
        self._jobs.append(_StepJob(addr, req.id, n, n, proven))
        return _DEFERRED

    def _op_subscribe(self, req: Request, addr: Address) -> dict[str, Any]:
        lim = self.limits
        rate = get_number(req.body, req.op, "rate", 50.0, 0.1, lim.max_subscription_rate)
        robots = get_str_list(req.body, req.op, "robots")
        links = get_bool(req.body, req.op, "links", False)
        lease = get_number(req.body, req.op, "lease", lim.lease, 1.0, lim.max_lease)
        self._state_body(robots)  # validates the names now rather than at push time
        if not self._proven:
            raise _NeedCookie
        now = time.monotonic()
        for a, sub in list(self._subs.items()):  # free the slots of vanished clients
            if now >= sub.expires:
                del self._subs[a]
                self.stats.expired += 1
        if addr not in self._subs:
            if len(self._subs) >= lim.max_subscribers:
                raise ProtocolError(f"subscribe: already {lim.max_subscribers} subscribers")
            same_host = sum(1 for a in self._subs if a[0] == addr[0])
            if same_host >= lim.subscribers_per_host:
                raise ProtocolError(
                    f"subscribe: already {same_host} subscriptions from {addr[0]} "
                    f"(at most {lim.subscribers_per_host} per address); unsubscribe one"
                )
        rate_bytes = lim.push_bytes_per_s
        push = ByteBucket(rate_bytes, max(rate_bytes, 65536.0), max(rate_bytes, 65536.0), now)
        self._subs[addr] = _Sub(
            1.0 / rate, now, robots, links, expires=now + lease, lease=lease, push=push
        )
        return {
            "rate": rate,
            "subscribers": len(self._subs),
            "lease": lease,
            "push_bytes_per_s": rate_bytes,
        }

    def _op_get_sensor(self, req: Request, addr: Address) -> dict[str, Any]:
        """The latest reading of a robot's sensor (docs/protocol.md, *Sensors*): its
        summary, or with ``field``, ``t`` and ``chunk`` one chunk of a binary field."""
        from robotsim.remote import sensor_wire as wire

        robot = self._robot_name(req)
        sensors = dict(self.target.robots()[robot].sensors)
        read = getattr(self.target, "sensor_reading", None)
        if read is None or not sensors:
            raise ProtocolError(f"get_sensor: robot {robot!r} has no sensors")
        if "sensor" not in req.body and len(sensors) == 1:
            name = next(iter(sensors))
        else:
            name = get_str(req.body, req.op, "sensor")
            if name not in sensors:
                raise ProtocolError(
                    f"get_sensor: unknown sensor {name!r} of robot {robot!r}; "
                    f"valid: {', '.join(sensors)}"
                )
        if "field" not in req.body:
            reading = read(robot, name)
            out, blobs = wire.summary(robot, name, reading.type, reading.t, reading.data)
            if blobs:
                self._wire.put(robot, name, reading.t, blobs)
            return out
        field = get_str(req.body, req.op, "field")
        t = get_number(req.body, req.op, "t")
        k = get_int(req.body, req.op, "chunk", 0, 0, 1 << 20)
        blobs = self._wire.get(robot, name, t)
        if blobs is None:
            kept = ", ".join(f"{x:g}" for x in self._wire.times(robot, name)) or "none"
            raise ProtocolError(
                f"get_sensor: the reading of {robot}/{name} at t={t:g} is no longer kept "
                f"(kept: {kept}); ask for the latest again (no 'field')"
            )
        if field not in blobs:
            raise ProtocolError(
                f"get_sensor: field {field!r} of {robot}/{name} has no chunks; "
                f"binary fields: {', '.join(blobs) or '(none)'}"
            )
        blob = blobs[field]
        n = max(1, math.ceil(len(blob) / wire.CHUNK_BYTES))
        if k >= n:
            raise ProtocolError(f"get_sensor: 'chunk' = {k}: field {field!r} has {n} chunks")
        return {"t": t, "robot": robot, "sensor": name, "field": field, "chunk": k,
                "chunks": n, "data": wire.chunk(blob, k)}  # fmt: skip

    def _op_cookie(self, req: Request, addr: Address) -> dict[str, Any]:
        return {"cookie": self.cookies.issue(addr)}

    def _op_renew(self, req: Request, addr: Address) -> dict[str, Any]:
        sub = self._subs.get(addr)  # (renewed on receipt already, if it had a cookie)
        return {
            "subscribed": sub is not None,
            "lease": None if sub is None else sub.lease,
            "renewed": sub is not None and self._proven,
        }

    def _op_unsubscribe(self, req: Request, addr: Address) -> dict[str, Any]:
        if not self._proven and addr in self._subs:  # a spoofed source cannot end it
            raise ProtocolError("unsubscribe: send it with this address's cookie (op 'cookie')")
        was = self._subs.pop(addr, None) is not None
        return {"was_subscribed": was}

    def _op_stats(self, req: Request, addr: Address) -> dict[str, Any]:
        wall = time.monotonic() - self._wall0
        sim = self.stats.steps * self.target.dt
        return {
            "stats": self.stats.to_json(),
            "subscribers": len(self._subs),
            "senders": len(self._buckets),
            "t": self.target.time,
            "fault": self.fault,
            "wall_s": wall,
            "sim_s": sim,
            "real_time_factor": sim / wall if wall > 0 else 0.0,
        }
