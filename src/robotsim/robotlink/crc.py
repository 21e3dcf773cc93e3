"""The two CRC-16 variants on the serial line (table-driven, built at import).

- :func:`crc16_dxl`: Dynamixel Protocol 2.0 — polynomial 0x8005, initial value 0, bits
  not reflected, no final XOR (also known as CRC-16/BUYPASS); check value for b"123456789"
  is 0xFEE8.
- :func:`crc16_ccitt`: our controller frames — polynomial 0x1021, initial value 0xFFFF,
  not reflected, no final XOR (CRC-16/CCITT-FALSE); check value 0x29B1.
"""

from __future__ import annotations

__all__ = ["crc16_ccitt", "crc16_dxl"]


def _table(poly: int) -> tuple[int, ...]:
    out = []
    for byte in range(256):
        c = byte << 8
        for _ in range(8):
            c = ((c << 1) ^ poly) if c & 0x8000 else (c << 1)
        out.append(c & 0xFFFF)
    return tuple(out)


_DXL = _table(0x8005)
_CCITT = _table(0x1021)


def _crc(table: tuple[int, ...], data: bytes, crc: int) -> int:
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def crc16_dxl(data: bytes, crc: int = 0) -> int:
    return _crc(_DXL, data, crc)


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    return _crc(_CCITT, data, crc)
