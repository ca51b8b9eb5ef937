#!/usr/bin/env python3
"""The device core (`SecurePushDeviceCore`, product `SecurePushDevice`) must build for iOS: no system-library target
and no SwiftNIO (nor any other package product but swift-crypto's and swift-log's) anywhere in its dependency graph,
and no Linux-only import in its sources (issue 28). Reads `swift package describe --type json`; exits 1 naming what
broke the rule."""
import json
import pathlib
import re
import subprocess
import sys

CORE = "SecurePushDeviceCore"
ALLOWED_PRODUCTS = {"Crypto", "Logging"}
LINUX_ONLY = re.compile(r"^\s*(@_exported\s+)?import\s+(Glibc|Musl|FoundationNetworking|NIO\w*|CNGHTTP2|HTTP2\w*)\b")


def main() -> int:
    description = json.loads(
        subprocess.run(
            ["swift", "package", "describe", "--type", "json"], check=True, capture_output=True, text=True
        ).stdout
    )
    targets = {target["name"]: target for target in description["targets"]}
    problems = []
    closure, pending = set(), [CORE]
    while pending:
        name = pending.pop()
        if name in closure:
            continue
        closure.add(name)
        target = targets[name]
        if target.get("type") == "system-target":
            problems.append(f"{name} is a system-library target")
        for product in target.get("product_dependencies", []):
            if product not in ALLOWED_PRODUCTS:
                problems.append(f"{name} depends on the product {product}")
        pending.extend(target.get("target_dependencies", []))
    for name in sorted(closure):
        for source in sorted(pathlib.Path(targets[name]["path"]).rglob("*.swift")):
            for number, line in enumerate(source.read_text().splitlines(), 1):
                if LINUX_ONLY.match(line):
                    problems.append(f"{source}:{number}: {line.strip()}")
    if problems:
        print(f"{CORE} must build without system libraries or SwiftNIO:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"{CORE}: {len(closure)} targets ({', '.join(sorted(closure))}), products {sorted(ALLOWED_PRODUCTS)} only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
