"""Byte transports for the serial line: a real/pty serial port (pyserial) or a raw
file descriptor (the master side of a pty). Both raise :class:`LinkError` when the
port disappears (unplugged adapter, closed pty)."""

from __future__ import annotations

import os
import select
import termios
import time
from abc import ABC, abstractmethod

from robotsim.errors import LinkError

__all__ = ["FdTransport", "SerialTransport", "Transport"]


class Transport(ABC):
    """``read(max_bytes, timeout) -> bytes`` (``b""`` on timeout), ``write(data)``."""

    name = "?"

    @abstractmethod
    def read(self, max_bytes: int, timeout: float) -> bytes: ...

    @abstractmethod
    def write(self, data: bytes) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


class SerialTransport(Transport):
    def __init__(self, port: str, baudrate: int = 115200) -> None:
        from robotsim.extras import require

        serial = require("serial", f"the serial port {port}")

        self.name = port
        try:
            self._ser = serial.Serial(port, baudrate=baudrate, timeout=0)
        except (OSError, serial.SerialException) as exc:
            raise LinkError(f"cannot open serial port {port}: {exc}") from None

    def read(self, max_bytes: int, timeout: float) -> bytes:
        import serial

        deadline = time.monotonic() + timeout
        try:
            while True:
                data = self._ser.read(max_bytes)
                if data:
                    return data
                left = deadline - time.monotonic()
                if left <= 0:
                    return b""
                select.select([self._ser.fileno()], [], [], min(left, 0.05))
        except (OSError, serial.SerialException, TypeError, termios.error) as exc:
            raise LinkError(f"serial port {self.name} failed (unplugged?): {exc}") from None

    def write(self, data: bytes) -> None:
        import serial

        try:
            self._ser.write(data)
            self._ser.flush()
        except (OSError, serial.SerialException, TypeError, termios.error) as exc:
            raise LinkError(f"serial port {self.name} failed (unplugged?): {exc}") from None

    def close(self) -> None:
        self._ser.close()


class FdTransport(Transport):
    """A raw file descriptor, e.g. the master of ``os.openpty()``."""

    def __init__(self, fd: int, name: str = "fd") -> None:
        self.fd = fd
        self.name = name
        self.closed = False

    def read(self, max_bytes: int, timeout: float) -> bytes:
        if self.closed:
            raise LinkError(f"{self.name} is closed")
        try:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return b""
            return os.read(self.fd, max_bytes)
        except OSError as exc:
            if exc.errno == 5:  # EIO: the other side of the pty is not open
                time.sleep(min(timeout, 0.05))
                return b""
            raise LinkError(f"{self.name} failed: {exc}") from None

    def write(self, data: bytes) -> None:
        if self.closed:
            raise LinkError(f"{self.name} is closed")
        try:
            os.write(self.fd, data)
        except OSError as exc:
            raise LinkError(f"{self.name} failed: {exc}") from None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)
