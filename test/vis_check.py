#!/usr/bin/env python3
"""mpix-vis end to end: pages made from real runs, their data replayed here
independently of the page's own JavaScript, then each page driven in headless
Chromium (python3-selenium + chromium-driver): after every step the blocks each
rank's buffers show, the blocks marked as about to move and just moved, and the
adjacency matrix must equal this script's replay of the trace files; the side-by-side
view, the selection map (against mpix-bench --auto-map and the bench CSV) and the
controls (STEP, BACK, PLAY, STOP, RESET, slider, arrow keys) are checked too.
Screenshots go to --out.

Exit 0: all passed; 1: a check failed; 77: the browser part could not run
(the page data was still checked), with the reason on stdout.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)
    return cond


def run(argv, **kw):
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    return proc


# ------------------------------------------------------------------ replay
def load_traces(prefix):
    ranks = []
    while os.path.exists("%s.%d.jsonl" % (prefix, len(ranks))):
        with open("%s.%d.jsonl" % (prefix, len(ranks))) as f:
            ranks.append([json.loads(line) for line in f if line.strip()])
    return ranks


class Expected:
    """Where every block is before and after each traced round.

    A block s*P+d starts at rank s. The rows with a send peer move their blocks
    to that peer; rounds in increasing order; within a round a row waits until
    its blocks have reached its rank. A repeat of the last move of a block is a
    piece of it (segmented rows).
    """

    def __init__(self, ranks, workload):
        self.P = P = len(ranks)
        self.node_of = workload["node_of"]
        sends = {}
        traced = set()
        for rank, rows in enumerate(ranks):
            for row in rows:
                if row["send_peer"] >= 0:
                    sends.setdefault(row["round"], []).append((rank, row["send_peer"], list(row["blocks"])))
                    traced.update(row["blocks"])
        self.rounds = sorted(sends)
        self.steps = [sends[r] for r in self.rounds]
        self.present = {b for b in range(P * P) if workload["bytes"][b // P][b % P] > 0 or b in traced}
        where = {b: b // P for b in self.present}
        last = {}
        self.states = [dict(where)]
        self.moved = [set()]
        self.problems = []
        for rnd, step in zip(self.rounds, self.steps):
            todo = list(step)
            moved = set()
            while todo:
                left = []
                for frm, to, blocks in todo:
                    if all(where.get(b) == frm or last.get(b) == (frm, to) for b in blocks):
                        for b in blocks:
                            if where.get(b) == frm:
                                where[b] = to
                                last[b] = (frm, to)
                                moved.add(b)
                    else:
                        left.append((frm, to, blocks))
                if len(left) == len(todo):
                    self.problems.append("round %d: sends of blocks not held: %s" % (rnd, left[:3]))
                    break
                todo = left
            self.states.append(dict(where))
            self.moved.append(moved)
        for b in self.present:
            if where[b] != b % P:
                self.problems.append("block %d->%d ends at %d" % (b // P, b % P, where[b]))

    def area(self, b, rank):
        s, d = divmod(b, self.P)
        return "recv" if rank == d else "send" if rank == s else "temp"

    def outgoing(self, k):
        if k >= len(self.steps):
            return set()
        h = self.states[k]
        return {b for frm, to, blocks in self.steps[k] for b in blocks if h.get(b) == frm}

    def pairs(self, k):
        if k >= len(self.steps):
            return {}
        return {(frm, to): "intra" if self.node_of[frm] == self.node_of[to] else "inter"
                for frm, to, _ in self.steps[k]}


# ------------------------------------------------------------------ pages
def make_page(opts, name, args):
    keep = os.path.join(opts.work, name)
    shutil.rmtree(keep, ignore_errors=True)
    page = os.path.join(opts.work, name + ".html")
    # An absolute mpix-bench path: the page must still show it as a user types it.
    argv = [sys.executable, opts.vis, "-o", page, "--keep", keep, "--assets", opts.assets,
            "--bench", os.path.abspath(opts.bench),
            "--launcher", opts.mpiexec + " -n {np}"] + args
    t0 = time.time()
    proc = run(argv)
    print("page %s: mpix-vis %s (%.1f s)" % (name, " ".join(args), time.time() - t0), flush=True)
    if not check(proc.returncode == 0, "mpix-vis %s failed:\n%s" % (" ".join(args), proc.stderr[-3000:])):
        return None
    with open(page) as f:
        html = f.read()
    start = html.index('<script type="application/json" id="mpix-data">') + len('<script type="application/json" id="mpix-data">')
    data = json.loads(html[start:html.index("</script>", start)].replace("<\\/", "</"))
    check("http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace("http://www.w3.org/2000/svg", "")
          and "https://" not in html, "%s: the page refers to the network" % name)
    expected = {}
    for r in data["runs"]:
        if r.get("command"):
            check(os.path.abspath(".") not in r["command"] and keep not in r["command"]
                  and " bench/mpix-bench " in r["command"],
                  "%s %s: the page's command names build-machine paths: %s" % (name, r["algorithm"], r["command"]))
        prefix = os.path.join(keep, r["id"])
        with open(prefix + ".workload.json") as f:
            wl = json.load(f)
        traces = load_traces(prefix)
        check(len(traces) == r["P"], "%s %s: %d trace files for P=%d" % (name, r["algorithm"], len(traces), r["P"]))
        e = Expected(traces, wl)
        check(not e.problems, "%s %s: the trace does not replay: %s" % (name, r["algorithm"], e.problems[:3]))
        check(len(e.steps) > 0, "%s %s: no traced round" % (name, r["algorithm"]))
        check(r["bytes"] == wl["bytes"] and r["node_of"] == wl["node_of"], "%s %s: page data differs from the workload"
              % (name, r["algorithm"]))
        expected[r["id"]] = e
    return page, data, expected


def bad_input(opts):
    """mpix-vis rejects what it cannot draw, with a message, and writes nothing."""
    out = os.path.join(opts.work, "never.html")
    cases = [["--np", "65"], ["--np", "1"], ["--hint", "radix"], ["--traces", os.path.join(opts.work, "nothing")],
             ["--algo", "no_such_algorithm", "--np", "2", "--no-map"], ["--algo", "a,b,c"]]
    for args in cases:
        proc = run([sys.executable, opts.vis, "-o", out, "--assets", opts.assets, "--bench", opts.bench,
                    "--launcher", opts.mpiexec + " -n {np}"] + args)
        check(proc.returncode != 0 and "mpix-vis" in proc.stderr and "Traceback" not in proc.stderr,
              "mpix-vis %s: exit %d, stderr %r" % (" ".join(args), proc.returncode, proc.stderr[-300:]))
        check(not os.path.exists(out), "mpix-vis %s wrote a page" % " ".join(args))


# ------------------------------------------------------------------ browser
DOM_JS = """
const q = arguments[0];
const out = [];
document.querySelectorAll(q + ' rect.blk').forEach((e) => out.push([+e.dataset.rank, e.dataset.area,
  e.dataset.block === undefined ? -1 : +e.dataset.block, e.dataset.state]));
return out;
"""
MATRIX_JS = """
const out = [];
document.querySelectorAll('#matrix rect.mcell').forEach((e) => { if (e.dataset.state.startsWith('now'))
  out.push([+e.dataset.from, +e.dataset.to, e.dataset.state.slice(4)]); });
return out;
"""


def compare_dom(driver, svg, e, k, label):
    cells = driver.execute_script(DOM_JS, svg)
    held, out, arrived = {}, set(), set()
    for rank, area, b, state in cells:
        if state in ("empty", "zero"):
            continue
        if not check(b >= 0, "%s: a %s cell without a block" % (label, state)):
            return False
        ok = check(b not in held, "%s: block %d drawn twice" % (label, b))
        ok = ok and check(area == e.area(b, rank), "%s: block %d->%d in rank %d's %s area, expected %s"
                          % (label, b // e.P, b % e.P, rank, area, e.area(b, rank)))
        if not ok:
            return False
        held[b] = rank
        if state == "outgoing":
            out.add(b)
        elif state == "arrived":
            arrived.add(b)
    want = e.states[k]
    if not check(held == want, "%s: blocks per rank differ from the trace, e.g. %s" % (label, sorted(
            (b // e.P, b % e.P, held.get(b), want.get(b)) for b in set(held) | set(want) if held.get(b) != want.get(b))[:5])):
        return False
    check(out == e.outgoing(k), "%s: 'about to move' marks %s, expected %s" % (label, sorted(out)[:8], sorted(e.outgoing(k))[:8]))
    check(arrived == e.moved[k] - e.outgoing(k), "%s: 'just moved' marks differ" % label)
    return True


def browser_part(opts, pages):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.keys import Keys
    except ImportError:
        return "python3-selenium is not installed"
    chrome = next((c for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)
    driver_bin = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chrome or not driver_bin:
        return "Chromium or chromedriver is not installed (Debian: chromium chromium-driver)"
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1000"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(driver_bin), options=o)
    except Exception as ex:  # a browser that cannot start is an environment problem, said plainly
        return "Chromium did not start: %s" % str(ex).splitlines()[0]
    os.makedirs(opts.out, exist_ok=True)
    shots = []

    def shot(name):
        path = os.path.join(opts.out, name + ".png")
        driver.save_screenshot(path)
        shots.append(path)

    def by_id(i):
        return driver.find_element("id", i)

    def attr(name):
        return by_id("vis").get_attribute(name)

    try:
        for name, (page, data, expected) in pages.items():
            driver.get("file://" + os.path.abspath(page))
            check(attr("data-ready") == "1", "%s: the page did not finish loading" % name)
            errors = [l for l in driver.get_log("browser") if l.get("level") == "SEVERE"]
            check(not errors, "%s: browser console errors %s" % (name, errors[:3]))
            check(attr("data-errors") == "0", "%s: the page reports trace problems: %s" % (name, by_id("errors").text[:300]))
            for r in data["runs"]:
                e = expected[r["id"]]
                label = "%s/%s" % (name, r["algorithm"])
                driver.execute_script("const s = document.getElementById('run-select'); s.value = arguments[0];"
                                      "s.dispatchEvent(new Event('change'));", r["id"])
                K = len(e.steps)
                check(attr("data-steps") == str(K), "%s: %s steps shown, the trace has %d" % (label, attr("data-steps"), K))
                for k in range(K + 1):
                    check(attr("data-step") == str(k), "%s: at step %d the page says %s" % (label, k, attr("data-step")))
                    if not compare_dom(driver, "#buffers", e, k, "%s step %d" % (label, k)):
                        break
                    got = {(a, b): h for a, b, h in driver.execute_script(MATRIX_JS)}
                    check(got == e.pairs(k), "%s step %d: matrix shows %s, expected %s" % (label, k, sorted(got)[:6], sorted(e.pairs(k))[:6]))
                    if k < K:
                        check(by_id("rule").text.strip() != "", "%s step %d: no rule in words" % (label, k))
                        check("round %d" % e.rounds[k] in by_id("info").text, "%s step %d: the info panel does not name round %d" % (label, k, e.rounds[k]))
                    if r is data["runs"][0] and k in (0, K // 2, K):
                        shot("%s-%s-step%d" % (name, r["algorithm"], k))
                    # alternate the ways of stepping
                    if k % 2:
                        by_id("btn-step").click()
                    else:
                        driver.find_element("tag name", "body").send_keys(Keys.ARROW_RIGHT)
                check(attr("data-step") == str(K), "%s: stepping past the end left step %s" % (label, attr("data-step")))
                driver.find_element("tag name", "body").send_keys(Keys.ARROW_LEFT)
                check(attr("data-step") == str(max(K - 1, 0)), "%s: left arrow did not step back" % label)
                by_id("btn-back").click()
                check(attr("data-step") == str(max(K - 2, 0)), "%s: BACK did not step back" % label)
                if K >= 2:
                    driver.execute_script("const s = document.getElementById('step-slider'); s.value = 1;"
                                          "s.dispatchEvent(new Event('input'));")
                    check(attr("data-step") == "1", "%s: the slider did not move to step 1" % label)
                    compare_dom(driver, "#buffers", e, 1, "%s slider step 1" % label)
                by_id("btn-reset").click()
                check(attr("data-step") == "0", "%s: RESET did not go to step 0" % label)
            # PLAY then STOP
            driver.execute_script("document.getElementById('speed').value = '250';")
            by_id("btn-play").click()
            deadline = time.time() + 10
            while time.time() < deadline and attr("data-step") in ("0", None):
                time.sleep(0.05)
            by_id("btn-stop").click()
            stopped = attr("data-step")
            check(stopped not in ("0", None), "%s: PLAY did not advance" % name)
            time.sleep(0.8)
            check(attr("data-step") == stopped and attr("data-playing") is None, "%s: STOP did not stop" % name)
            by_id("btn-reset").click()

            if data.get("compare"):
                by_id("tab-compare").click()
                ea, eb = expected[data["compare"][0]], expected[data["compare"][1]]
                table = by_id("cmp-table").text
                check("steps (rounds) %d %d" % (len(ea.steps), len(eb.steps)) in table.replace("\n", " "),
                      "%s: side-by-side steps row %r" % (name, table[:200]))
                for k in range(max(len(ea.steps), len(eb.steps)) + 1):
                    check(attr("data-cmp-step") == str(k), "%s side by side: step %s, expected %d" % (name, attr("data-cmp-step"), k))
                    compare_dom(driver, "#cmp-a-svg", ea, min(k, len(ea.steps)), "%s side by side left step %d" % (name, k))
                    compare_dom(driver, "#cmp-b-svg", eb, min(k, len(eb.steps)), "%s side by side right step %d" % (name, k))
                    if k == 1:
                        shot("%s-side-by-side" % name)
                    by_id("cmp-step").click()

            if data.get("map"):
                m = data["map"]
                by_id("tab-map").click()
                shot("%s-selection-map" % name)
                proc = run([opts.bench, "--auto-map"] + (["--map-ppn", opts.map_ppn] if opts.map_ppn else []))
                rule = json.loads(proc.stdout)["collectives"][m["collective"]]["ppn"]
                cells = driver.execute_script("return Array.from(document.querySelectorAll('rect.mapcell')).map("
                                              "(e) => [e.dataset.ppn, +e.dataset.p, +e.dataset.bytes, e.dataset.algorithm]);")
                want = {(ppn, P, b): panel["pick"][i][j] for ppn, panel in rule.items()
                        for i, P in enumerate(panel["P"]) for j, b in enumerate(panel["bytes"])}
                check({(a, b, c): d for a, b, c, d in cells} == want and len(cells) == len(want),
                      "%s: the map differs from mpix-bench --auto-map" % name)
                measured = expected_measured(opts.csv, m["collective"], rule)
                circles = driver.execute_script("return Array.from(document.querySelectorAll('circle.measured')).map("
                                                "(e) => e.dataset.algorithm).sort();")
                check(circles == sorted(measured), "%s: measured markers %s, the CSV's fastest %s" % (name, circles[:6], sorted(measured)[:6]))
                # clicking a region opens that algorithm's animation
                for alg, rid in sorted(m["runs"].items()):
                    cell = driver.execute_script("return document.querySelector('rect.mapcell[data-algorithm=\"' + arguments[0] + '\"]');", alg)
                    if cell is None:
                        continue
                    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));", cell)
                    check(attr("data-view") == "anim" and attr("data-run") == rid,
                          "%s: clicking a %s region opened run %s (view %s)" % (name, alg, attr("data-run"), attr("data-view")))
                    by_id("tab-map").click()
    finally:
        driver.quit()
    for s in shots:
        check(os.path.getsize(s) > 5000, "screenshot %s is empty" % s)
    print("browser: %d screenshots in %s" % (len(shots), opts.out))
    return None


def expected_measured(paths, collective, rule):
    """The fastest algorithm per (P, ppn, size) of the CSVs, where the map has that point."""
    best = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("collective", collective) != collective or ";persistent" in row.get("params", ""):
                    continue
                if row.get("verified", "ok") not in ("ok", "yes", "") or row.get("status", "ok") not in ("ok", ""):
                    continue
                key = (int(row["P"]), str(int(row.get("ppn") or 1)), int(row["size"]))
                t = float(row["median_us"])
                if key not in best or t < best[key][0]:
                    best[key] = (t, row["algorithm"])
    out = []
    for (P, ppn, size), (_, alg) in best.items():
        panel = rule.get(ppn)
        if panel and P in panel["P"] and size in panel["bytes"]:
            out.append(alg)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vis", required=True)
    ap.add_argument("--assets", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--out", required=True, help="screenshots")
    ap.add_argument("--csv", action="append", default=[], help="bench CSV for the map's measured markers")
    ap.add_argument("--map-ppn", default="1,8")
    opts = ap.parse_args()
    opts.work = tempfile.mkdtemp(prefix="mpix-vis-test-")
    try:
        pages = {}
        specs = {
            # uniform, side by side, emulated nodes, the selection map with every pick animated
            "alltoall": ["--coll", "alltoall", "--algo", "bruck_radix,node_aware", "--np", "8", "--ppn", "4",
                         "--hint", "radix=3", "--size", "8", "--map-ppn", opts.map_ppn]
                        + sum((["--map-csv", c] for c in opts.csv), []),
            # non-uniform with zero-size blocks, a staged (ParLogNa) and a two-phase Bruck
            "alltoallv": ["--coll", "alltoallv", "--algo", "parlogna,two_phase_bruck", "--np", "6", "--size", "16",
                          "--hint", "radix=3", "--no-map"],
            # hierarchical across uneven nodes (5 ranks, nodes of 2) beside the MPI library's own (opaque)
            "hierarchical": ["--coll", "alltoall", "--algo", "hierarchical,pmpi", "--np", "5", "--ppn", "2", "--no-map"],
            # the sparse exchanges and the neighbour exchange, node-aggregated beside direct
            "crs": ["--coll", "alltoallv_crs", "--algo", "personalized_locality,nonblocking", "--np", "6", "--ppn", "3",
                    "--dist", "graph:2", "--size", "8", "--no-map"],
            "neighbor": ["--coll", "neighbor_alltoallv", "--algo", "locality,standard", "--np", "6", "--ppn", "3",
                         "--dist", "graph:3", "--size", "8", "--no-map"],
        }
        for name, args in specs.items():
            made = make_page(opts, name, args)
            if made:
                pages[name] = made
        if "alltoallv" in pages:
            sizes = [b for r in pages["alltoallv"][1]["runs"] for row in r["bytes"] for b in row]
            check(0 in sizes, "the alltoallv page has no zero-size block (the case is meant to cover them)")
        bad_input(opts)
        if failures:
            return 1
        why = browser_part(opts, pages)
        if why:
            print("SKIP (browser part): %s; the pages' data was checked. Install: apt-get install chromium "
                  "chromium-driver python3-selenium (.ci/install-deps does)" % why)
            return 1 if failures else 77
        return 1 if failures else 0
    finally:
        shutil.rmtree(opts.work, ignore_errors=True)


if __name__ == "__main__":
    rc = main()
    print("%d failure(s)" % len(failures) if failures else "ok" if rc == 0 else "skipped" if rc == 77 else "")
    sys.exit(rc)
