"""The documentation site: built from the committed notebooks into a temporary folder, served on 127.0.0.1 and opened
page by page in headless Chromium (Debian's package, which `.ci/run` installs) at a 1280-pixel window.
On every page: no console errors, every image loads, math is typeset (no raw $$ or \\( left), every internal link
resolves, no Markdown table left as a paragraph of pipes, no code block or table wider than its column (nothing
to scroll sideways), every figure shown at a legible size, and no `_empty` or machine address (`at 0x7f...`) in the
text. The API pages list every public name. Screenshots of the home page and chapter 1.5 are kept outside the tree
(RESIZE_NEAREST_SCREENSHOTS, default /tmp/resize_nearest_docs_screenshots)."""
import functools, http.server, importlib, json, os, re, shutil, subprocess, sys, threading
from pathlib import Path
from urllib.parse import urljoin, urlparse, unquote
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get('RESIZE_NEAREST_SCREENSHOTS', '/tmp/resize_nearest_docs_screenshots'))

def chromium() -> str:
    """Path of Debian's chromium. A test never installs it: `.ci/run` does (`apt-get install chromium`).
    Without it the browser tests skip and say so, except under CI (CI set, and not 0 or false),
    where a missing browser fails them, so the check cannot silently vanish."""
    for name in ('chromium', 'chromium-browser'):
        if shutil.which(name): return shutil.which(name)
    if os.environ.get('CI', '').lower() not in ('', '0', 'false'):
        pytest.fail('chromium is missing under CI: .ci/run installs it with apt-get install chromium')
    pytest.skip("no chromium on PATH: install Debian's chromium (apt-get install chromium) to run the site in a browser")

@pytest.fixture(scope='module')
def browser_path():
    return chromium()

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp('site')
    r = subprocess.run([sys.executable, 'tools/build_docs.py', '--src', str(out / 'src'), '--out', str(out / 'html')], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    html = out / 'html'
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    handler = functools.partial(Quiet, directory=str(html))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield html, f'http://127.0.0.1:{server.server_address[1]}/'
    server.shutdown()
    server.server_close()

# What the browser measures on a page: blocks wider than the article (or than their own box: a
# scrollbar), paragraphs that are Markdown tables nobody rendered (pipes and a rule of dashes, which
# the site's typography turns into em dashes), and each image's displayed and natural width.
LAYOUT = """() => {
  const article = document.querySelector("article") || document.body;
  const right = article.getBoundingClientRect().right + 1;
  const wide = [...article.querySelectorAll("pre, table")]
    .filter(e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > right)
    .map(e => `${e.tagName} ${e.scrollWidth}px in ${e.clientWidth}px: ${e.innerText.replace(/\\s+/g, ' ').slice(0, 50)}`);
  const pipes = [...article.querySelectorAll("p, li")]
    .filter(p => /[|]\\s*(-{3,}|\u2014)/.test(p.innerText)).map(p => p.innerText.slice(0, 50));
  const images = [...article.querySelectorAll("img")]
    .map(i => [i.getAttribute("src"), i.naturalWidth, i.getBoundingClientRect().width]);
  return {wide, pipes, images, text: article.innerText};
}"""
# A figure is legible when it is shown at 64 or more screen pixels per inch of figure: matplotlib's
# 10-point labels are then at least 9 pixels high.
MIN_PIXELS_PER_INCH = 64
INTERNALS = re.compile(r'\b_empty\b|\bat 0x[0-9a-f]{6,}')


def illegible(html, page_name, images):
    "The images of a page shown at fewer than MIN_PIXELS_PER_INCH screen pixels per figure inch."
    from PIL import Image
    small = []
    for src, natural, shown in images:
        path = html / unquote(urlparse(urljoin(page_name, src)).path)
        with Image.open(path) as image:
            dpi = image.info.get('dpi', (72, 72))[0]
        if natural and shown * dpi / natural < MIN_PIXELS_PER_INCH:
            small.append(f'{src}: {natural / dpi:.1f} in shown {shown:.0f} px wide')
    return small


def layout_problems(html, name, page):
    "Everything LAYOUT and the text checks find wrong on the open page, as short strings."
    found = page.evaluate(LAYOUT)
    problems = [f'too wide: {w}' for w in found['wide']]
    problems += [f'unrendered Markdown table: {p}' for p in found['pipes']]
    problems += [f'illegible figure: {s}' for s in illegible(html, name, found['images'])]
    problems += [f'internal repr: {m}' for m in sorted(set(INTERNALS.findall(found['text'])))]
    return problems


def pages(html):
    return sorted(p.relative_to(html).as_posix() for p in html.rglob('*.html') if not p.relative_to(html).parts[0].startswith('_')
                  and p.name not in ('genindex.html', 'search.html'))

@pytest.mark.slow
def test_site_in_chromium(browser_path, site):
    from playwright.sync_api import sync_playwright
    html, base = site
    names = pages(html)
    chapters = sorted(p.stem for p in (ROOT / 'nbs').glob('[0-9aer]*.ipynb'))
    assert set(f'{c}.html' for c in chapters) <= set(names) and 'index.html' in names
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        errors = []
        page.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
        page.on('pageerror', lambda e: errors.append(str(e)))
        # a request the browser aborted (net::ERR_ABORTED: the next navigation cancelled it) is not a
        # site error; a missing file still shows as its HTTP 404 below
        page.on('requestfailed', lambda r: errors.append(f'request failed: {r.url} ({r.failure})')
                if 'ERR_ABORTED' not in (r.failure or '') else None)
        page.on('response', lambda r: errors.append(f'HTTP {r.status}: {r.url}') if r.status >= 400 else None)
        for name in names:
            errors.clear()
            page.goto(base + name, wait_until='load')
            page.wait_for_function('() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)', timeout=20000)
            page.evaluate('() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null')
            bad_imgs = page.evaluate('() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)')
            text = page.evaluate('() => document.querySelector("article, main, body").innerText')
            raw = [m for m in ('$$', '\\\\(', '\\\\[') if m in text]
            links = page.evaluate('() => [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href"))')
            dead = []
            for href in links:
                if not href or href.startswith(('#', 'http:', 'https:', 'mailto:', 'javascript:')): continue
                target = urlparse(urljoin(base + name, href)).path.lstrip('/')
                if not (html / unquote(target)).exists(): dead.append(href)
            if errors or bad_imgs or raw or dead:
                problems.append(f'{name}: console {errors[:3]}, images {bad_imgs[:3]}, raw math {raw}, dead links {dead[:3]}')
            problems += [f'{name}: {p}' for p in layout_problems(html, name, page)]
            if name in ('index.html', '15_gather_kernels.html'):
                page.screenshot(path=str(SHOTS / name.replace('.html', '.png')), full_page=False)
        browser.close()
    assert not problems, '\n'.join(problems)
    assert (SHOTS / 'index.png').stat().st_size > 10_000

@pytest.mark.slow
def test_math_is_typeset_and_api_pages_list_every_public_name(site):
    html, _ = site
    assert 'class="math' in (html / '14_tile_graph.html').read_text()            # MathJax input, typeset in the browser test
    assert '_static/mathjax/es5/tex-chtml.js' in (html / '14_tile_graph.html').read_text()    # served by the site itself
    for page in html.rglob('*.html'):
        assert 'cdn.jsdelivr' not in page.read_text() and 'mathjax@' not in page.read_text(), page.name
    for page in (html / 'api').glob('resize_nearest*.html'):
        mod = importlib.import_module(page.stem)
        text = page.read_text()
        missing = [n for n in getattr(mod, '__all__', []) if not n.startswith('_') and n not in text]
        assert not missing, f'{page.name} lacks {missing}'
    assert len(list((html / 'api').glob('resize_nearest*.html'))) >= 15


@pytest.mark.slow
def test_the_layout_checks_catch_what_they_check(browser_path, site):
    "A page made to break each rule once: every rule reports it, and the real home page passes them."
    from playwright.sync_api import sync_playwright
    html, base = site
    figure = next((html / '_images').glob('11_wrong_pixels*.png')).name
    broken = (f'<p>| a | b |<br>|---|---|</p><pre>{"x" * 400}</pre>'
              f'<img src="_images/{figure}" style="width:100px"><p>kernel=&lt;function f at 0x7f12ab34cd&gt; '
              'type _empty</p>')
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        page.goto(base + 'index.html', wait_until='load')
        assert layout_problems(html, 'index.html', page) == []
        page.evaluate('html => { document.querySelector("article").innerHTML = html; }', broken)
        page.wait_for_function('() => [...document.images].every(i => i.complete)')
        found = layout_problems(html, 'index.html', page)
        browser.close()
    kinds = sorted({p.split(':')[0] for p in found})
    assert kinds == ['illegible figure', 'internal repr', 'too wide', 'unrendered Markdown table'], found


def book_order() -> list:
    "The chapters in the order of nbs/parts.json (the core track, then the reference), then the pages."
    tracks = json.loads((ROOT / 'nbs' / 'parts.json').read_text(encoding='utf-8'))
    keys = [key for parts in tracks.values() for key in parts]
    return [p for key in keys for p in sorted((ROOT / 'nbs').glob(f'{key}[0-9]*.ipynb'))] + sorted(
        (ROOT / 'nbs').glob('*.md'))


def test_readme_chapter_table_lists_every_chapter_by_its_title():
    "The README's map has one row per chapter and page, in the book's order, named by its title."
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    table = readme[readme.index('## Read it'):]
    linked = re.findall(r'^\| \[([^\]]+)\]\(nbs/([^)]+)\)', table, re.M)
    chapters = book_order()
    assert [name for _, name in linked] == [p.name for p in chapters]
    for (title, name), path in zip(linked, chapters):
        text = path.read_text(encoding='utf-8')
        heading = json.loads(text)['cells'][0]['source'][0] if path.suffix == '.ipynb' else text
        words = re.sub(r'[#·`]', ' ', heading.splitlines()[0]).split()
        assert re.sub(r'[`·]', ' ', title).split() == words, (name, title, heading)


def visible_text(markdown: str) -> str:
    "What a page shows of Markdown: no link targets, images, HTML comments or table rules."
    text = re.sub(r'<!--.*?-->', '', markdown, flags=re.S)
    text = re.sub(r'!\[[^\]]*\]\([^)]*\)', '', text)
    text = re.sub(r'\]\([^)]*\)', ']', text)
    return re.sub(r'^\|[-|]+\|$', '', text, flags=re.M)


def test_readme_is_short_and_maps_the_book_near_the_top():
    "A newcomer reads the README top to bottom: about 12 KB on the page, the book's map near the top."
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert len(visible_text(readme).encode('utf-8')) <= 12_000, len(visible_text(readme))
    assert readme[:readme.index('## Read it')].count('\n') <= 60
    assert visible_text('a [b](c.md) ![d](e.png)\n|---|---|\n<!-- f -->') == 'a [b] \n\n'


def test_tables_break_identifiers_only_between_their_parts():
    """`overflow-wrap: anywhere` on code split `rowgather` mid-word in a table cell; code in tables
    now wraps at spaces and at a <wbr> after each underscore or dot, which the site build adds."""
    import importlib.util
    spec = importlib.util.spec_from_file_location('build_docs', ROOT / 'tools' / 'build_docs.py')
    build_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_docs)
    code_rules = [r for r in build_docs.SITE_CSS.split('}') if 'table code' in r.split('{')[0]]
    assert code_rules and not [r for r in code_rules if 'anywhere' in r], code_rules
    cell = '<td><code><span class="pre">resize_nearest.rowgather</span></code></td>'
    assert build_docs.identifier_breaks(cell + '<p><span class="pre">a_b</span></p>') == (
        '<td><code><span class="pre">resize_<wbr>nearest.<wbr>rowgather</span></code></td>'
        '<p><span class="pre">a_b</span></p>')


def test_readme_first_screen_says_who_it_is_for_the_trainium_status_and_the_ways_in():
    first = '\n'.join((ROOT / 'README.md').read_text(encoding='utf-8').splitlines()[:40])
    for needed in ('Who it is for', 'Trainium and Inferentia', 'TensorRT', 'NKI kernel authors',
                   'nothing has run yet', 'resize-nearest check', 'resize_nearest(x,',
                   'interpolate_nearest', 'torch extra'):
        assert needed in first, needed


def test_every_parameter_of_the_face_says_what_it_means():
    """Each parameter of a top-level function has a meaning on its API page: a comment beside it
    (fastcore's docments) or, for kernels written in nki-library's style, an `Args:` entry."""
    import inspect
    import resize_nearest
    from fastcore.docments import docments
    silent = []
    for name in resize_nearest.__all__:
        obj = getattr(resize_nearest, name)
        if not inspect.isfunction(inspect.unwrap(obj)):
            continue
        doc = inspect.getdoc(obj) or ''
        for param, meaning in docments(obj).items():
            named = re.search(rf'^\s+{param} \(', doc, re.M)
            if param != 'return' and not meaning and not named:
                silent.append(f'{name}({param})')
    assert not silent, silent


def test_readme_table_shows_the_two_tracks_and_their_parts_in_order():
    """The README's map heads each track of nbs/parts.json in bold and each part in italics, in the
    book's order, and every chapter row sits under its own part."""
    tracks = json.loads((ROOT / 'nbs' / 'parts.json').read_text(encoding='utf-8'))
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    table = readme[readme.index('## Read it'):]
    rows = re.findall(r'^\| (?:\*\*(.+?)\*\*|\*(.+?)\*|\[[^\]]+\]\(nbs/([0-9]|[a-z])[^)]*\)) \|',
                      table, re.M)
    seen_tracks, seen_parts, current = [], [], None
    titles = {title: key for parts in tracks.values() for key, title in parts.items()}
    for track, part, chapter_key in rows:
        seen_tracks += [track] if track else []
        if part:
            seen_parts.append(part)
            current = titles.get(part)
        elif chapter_key and current:
            assert chapter_key == current, (chapter_key, current)
    assert seen_tracks == list(tracks), seen_tracks
    assert seen_parts[:len(titles)] == list(titles), seen_parts


def test_the_site_navigation_shows_the_core_track_and_the_reference(tmp_path):
    "The docs site's table of contents: two sections, the core track's chapters first, in order."
    import importlib.util
    spec = importlib.util.spec_from_file_location('build_docs', ROOT / 'tools' / 'build_docs.py')
    build_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_docs)
    chapters = sorted((ROOT / 'nbs').glob('[0-9aer]*.ipynb'))
    build_docs.stage_pages(tmp_path, chapters, sorted((ROOT / 'nbs').glob('*.md')))
    cells = json.loads((tmp_path / 'index.ipynb').read_text())['cells']
    toc = ''.join(cells[-1]['source'])
    captions = re.findall(r':caption: (.+)', toc)
    assert captions == ['The kernel, explained', 'Reference'], captions
    core = toc.split(':caption: Reference')[0]
    names = [p.stem for p in book_order() if p.suffix == '.ipynb']
    assert re.findall(r'^(\w+)$', core, re.M) == [n for n in names if n[0].isdigit()]
