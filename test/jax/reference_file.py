"""Writing or checking a committed reference file (the gen_*_reference.py scripts).

  main(doc_fn, default_name, what)   parses --out FILE / --check FILE; doc_fn()
                                     returns the document, whose "cases" are
                                     compared with FILE's under --check
"""
import argparse
import json
import os
import sys


def main(doc_fn, default_name, what, description):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", default=os.path.join(here, "reference", default_name))
    parser.add_argument("--check", metavar="FILE")
    args = parser.parse_args()
    doc = doc_fn()
    if args.check:
        with open(args.check) as f:
            old = json.load(f)
        if old["cases"] != doc["cases"]:
            print(f"{args.check}: differs from what {what} computes now", file=sys.stderr)
            return 1
        print(f"{args.check}: {len(doc['cases'])} cases as {what} computes them")
        return 0
    with open(args.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: {len(doc['cases'])} cases")
    return 0
