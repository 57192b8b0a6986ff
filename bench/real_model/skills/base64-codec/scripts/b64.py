#!/usr/bin/env python3
"""Base64 encode or decode a string."""
import base64
import binascii
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("encode", "decode"):
        print("usage: b64.py encode|decode TEXT", file=sys.stderr)
        return 2
    text = " ".join(sys.argv[2:])
    if sys.argv[1] == "encode":
        print(base64.b64encode(text.encode()).decode())
        return 0
    try:
        print(base64.b64decode(text, validate=True).decode("utf-8", "replace"))
    except (binascii.Error, ValueError) as e:
        print(f"not valid base64: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
