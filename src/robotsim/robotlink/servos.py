"""Live link to Dynamixel servos (Protocol 2.0) through ``dynamixel-sdk``.

:class:`ServoBus` pings the profile's servos, switches torque, sync-writes goal
positions (one packet for all servos per tick) and reads present positions back.
:func:`stream` sends a sampled playback at its own tick rate (or as fast as the bus
allows) and reports how far the servos' read-back positions were from the commands.

Timeouts follow the link's measured round trip (:class:`RoundTrip`): the SDK waits a
fixed ``2 x 16 ms`` latency timer plus the bytes' time for a status packet, which a USB
adapter on a busy machine (or an emulator sharing two loaded cores) misses, and then
reports "There is no status packet!". Every answered transaction feeds a smoothed round
trip and its variation (the estimator of TCP's retransmission timer, RFC 6298), and a
status packet is awaited for ``srtt + 4 rttvar`` (never less than the SDK's own
timeout, at most 2 s); a timeout doubles the wait for the retry.
"""

from __future__ import annotations

import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from robotsim.errors import LinkError
from robotsim.model.robot import RobotModel
from robotsim.motion.profile import RobotProfile
from robotsim.motion.timeline import Samples
from robotsim.robotlink.servomap import ServoMap

__all__ = ["RoundTrip", "ServoBus", "StreamReport", "stream"]


class RoundTrip:
    """The round-trip estimate of one link (RFC 6298's SRTT/RTTVAR, ms): how long to
    wait for a reply. ``floor_ms``: never less (the SDK's own timeout); ``cap_ms``:
    never more."""

    def __init__(self, initial_ms: float = 100.0, cap_ms: float = 2000.0) -> None:
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.cap_ms = float(cap_ms)
        self._rto = float(initial_ms)
        self.samples = 0

    def sample(self, rtt_ms: float) -> None:
        """An answered transaction took ``rtt_ms``."""
        r = float(rtt_ms)
        if self.srtt is None:
            self.srtt, self.rttvar = r, r / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - r)
            self.srtt = 0.875 * self.srtt + 0.125 * r
        self._rto = min(self.cap_ms, self.srtt + 4 * self.rttvar)
        self.samples += 1

    def backoff(self) -> None:
        """A reply did not come: wait twice as long next time (up to the cap)."""
        self._rto = min(self.cap_ms, 2 * self._rto)

    def timeout_ms(self, floor_ms: float) -> float:
        return max(float(floor_ms), self._rto)


#: Seconds a link that has never answered keeps trying before it gives up (beyond
#: ``retries``): time for a robot to boot or an emulator to start.
FIRST_CONTACT_S = 15.0


def _timed_port(sdk: object, port: str, rtt: RoundTrip) -> object:
    """The SDK's PortHandler for ``port``, its status-packet timeout taken from ``rtt``
    (the SDK's fixed formula is the floor)."""
    base = sdk.PortHandler  # type: ignore[attr-defined]

    class TimedPort(base):  # type: ignore[misc, valid-type]
        def setPacketTimeout(self, packet_length: int) -> None:  # the SDK calls it so
            super().setPacketTimeout(packet_length)
            self.packet_timeout = rtt.timeout_ms(self.packet_timeout)

    return TimedPort(port)


@contextmanager
def _port_errors(port: str) -> Iterator[None]:
    """pyserial/termios failures inside dynamixel-sdk -> LinkError (unplugged adapter)."""
    import serial

    try:
        yield
    except (OSError, serial.SerialException, termios.error) as exc:
        raise LinkError(f"servo port {port} failed (unplugged?): {exc}") from None


class ServoBus:
    """The servos of ``profile`` on ``port`` (a serial device path)."""

    def __init__(
        self,
        port: str,
        model: RobotModel,
        profile: RobotProfile,
        baudrate: int | None = None,
        retries: int = 4,
    ) -> None:
        from robotsim.extras import require

        require("serial", f"the servo port {port}")
        sdk = require("dynamixel_sdk", f"the servo bus on {port}")

        self._sdk = sdk
        self.model = model
        self.map = ServoMap.from_profile(model, profile)
        self.bus = profile.servos
        self.port_name = port
        self.retries = int(retries)
        self.rtt = RoundTrip()
        self.port = _timed_port(sdk, port, self.rtt)
        self.packets = sdk.PacketHandler(2.0)
        try:
            opened = self.port.openPort()
        except Exception as exc:  # pyserial raises its own exception types
            raise LinkError(f"cannot open servo port {port}: {exc}") from None
        if not opened or not self.port.setBaudRate(baudrate or self.bus.baudrate):
            raise LinkError(f"cannot open servo port {port} at {baudrate or self.bus.baudrate} Bd")
        self._writer = sdk.GroupSyncWrite(self.port, self.packets, self.bus.addr_goal_position, 4)

    def close(self) -> None:
        self.port.closePort()

    def __enter__(self) -> ServoBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _txrx(self, call, what: str):  # type: ignore[no-untyped-def]
        """Run an SDK transaction returning ``(..., result, error)``; a lost or damaged
        status packet is retried up to ``retries`` times (busy buses drop packets), each
        time waiting twice as long; an answered one feeds the round-trip estimate."""
        attempt, first_deadline = 0, time.monotonic() + FIRST_CONTACT_S
        while True:
            t0 = time.perf_counter()
            out = call()
            result, error = out[-2], out[-1]
            if result == self._sdk.COMM_SUCCESS:
                self.rtt.sample((time.perf_counter() - t0) * 1e3)
            elif result == self._sdk.COMM_RX_TIMEOUT:
                self.rtt.backoff()
            # until the link has answered once, a device that is still starting up gets
            # up to FIRST_CONTACT_S of further attempts (a robot booting, an emulator
            # loading its model on a busy machine)
            waiting_first = self.rtt.srtt is None and time.monotonic() < first_deadline
            if result == self._sdk.COMM_SUCCESS or (attempt >= self.retries and not waiting_first):
                self._check(result, error, what, attempt + 1)
                return out
            attempt += 1

    def _check(self, result: int, error: int, what: str, attempts: int | None = None) -> None:
        if result != self._sdk.COMM_SUCCESS:
            waited = self.rtt.timeout_ms(0.0)
            n = attempts or self.retries + 1
            raise LinkError(
                f"{what}: {self.packets.getTxRxResult(result)} (after {n} "
                f"attempts, the last waiting {waited:.0f} ms; measured round trip "
                f"{self.rtt.srtt if self.rtt.srtt is not None else float('nan'):.1f} ms)"
            )
        if error:
            raise LinkError(f"{what}: servo error: {self.packets.getRxPacketError(error)}")

    def ping(self) -> dict[str, int]:
        """Model number of every servo, by joint name."""
        with _port_errors(self.port_name):
            out = {}
            for name, sid in zip(self.map.joints, self.map.ids):
                model, _, _ = self._txrx(
                    lambda sid=sid: self.packets.ping(self.port, int(sid)),
                    f"ping servo {sid} ({name})",
                )
                out[name] = int(model)
            return out

    def torque(self, on: bool) -> None:
        with _port_errors(self.port_name):
            for name, sid in zip(self.map.joints, self.map.ids):
                self._txrx(
                    lambda sid=sid: self.packets.write1ByteTxRx(
                        self.port, int(sid), self.bus.addr_torque_enable, int(on)
                    ),
                    f"torque {'on' if on else 'off'} servo {sid} ({name})",
                )

    def write_q(self, q: np.ndarray) -> np.ndarray:
        """Sync-write goal positions for ``q`` ``(nq,)`` rad; returns the ticks sent."""
        with _port_errors(self.port_name):
            ticks = self.map.to_ticks(q)
            self._writer.clearParam()
            for sid, t in zip(self.map.ids, ticks):
                self._writer.addParam(int(sid), list(int(t).to_bytes(4, "little", signed=True)))
            res = self._writer.txPacket()
            if res != self._sdk.COMM_SUCCESS:
                raise LinkError(f"sync write of goal positions: {self.packets.getTxRxResult(res)}")
            return ticks

    def read_ticks(self) -> np.ndarray:
        """Present positions ``(S,)`` in ticks (one READ per servo)."""
        with _port_errors(self.port_name):
            out = np.empty(len(self.map.ids), dtype=np.int64)
            for k, sid in enumerate(self.map.ids):
                v, _, _ = self._txrx(
                    lambda sid=sid: self.packets.read4ByteTxRx(
                        self.port, int(sid), self.bus.addr_present_position
                    ),
                    f"read present position of servo {sid}",
                )
                out[k] = int(np.int32(np.uint32(v)))
            return out

    def read_q(self, base: np.ndarray | None = None) -> np.ndarray:
        """Present configuration ``(nq,)`` rad (joints without servos from ``base``)."""
        return self.map.to_q(self.read_ticks(), self.model.zero() if base is None else base)


@dataclass(frozen=True)
class StreamReport:
    ticks_sent: int
    seconds: float
    max_readback_error_ticks: int
    readbacks: int


def stream(
    bus: ServoBus, samples: Samples, realtime: bool = True, readback_every: int = 10
) -> StreamReport:
    """Send every sample of a playback to the servos; every ``readback_every`` ticks,
    read the positions back and compare with what was sent."""
    t0 = time.monotonic()
    worst = 0
    reads = 0
    for i in range(samples.ticks + 1):
        if realtime:
            wait = t0 + samples.t[i] - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        sent = bus.write_q(samples.q[i])
        if readback_every and (i % readback_every == 0 or i == samples.ticks):
            worst = max(worst, int(np.max(np.abs(bus.read_ticks() - sent))))
            reads += 1
    return StreamReport(samples.ticks + 1, time.monotonic() - t0, worst, reads)
