"""The book's shape, as a reader meets it (DESIGN.md, nbs/parts.json): a core track a newcomer reads
start to end (about 500 cells, every chapter opening with a figure) and a reference beside it; the
story parts show their geometry in figures, lead with their problem rather than their plumbing, and
every slow cell carries the output of a real run. Counted from the committed notebooks, so the counts
are what a reader sees."""
import json
import re
from pathlib import Path

import pytest

NBS = Path(__file__).resolve().parent.parent / 'nbs'
TRACKS = json.loads((NBS / 'parts.json').read_text(encoding='utf-8'))
CORE = list(TRACKS['The kernel, explained'])
# the least number of figures each part of the core track shows
FIGURES_AT_LEAST = {'1': 12, '2': 4, '3': 4}
# a reader finishes the core track: about 500 cells, a figure within each chapter's first six
CORE_CELLS_AT_MOST = 520
FIGURE_WITHIN = 6
EXPORT = re.compile(r'^#\|\s*export')
SLOW = re.compile(r'^#\|\s*slow\b', re.M)


def cells(path):
    return json.loads(path.read_text(encoding='utf-8'))['cells']


def chapters(part):
    return sorted(NBS.glob(f'{part}[0-9]*.ipynb'))


def figure_cells(path) -> list:
    "Positions of the cells that show a figure: an image output, or an image in Markdown."
    found = []
    for i, cell in enumerate(cells(path)):
        images = [o for o in cell.get('outputs', []) if 'image/png' in o.get('data', {})]
        markdown = cell['cell_type'] == 'markdown' and '![' in ''.join(cell['source'])
        if images or markdown:
            found.append(i)
    return found


def figure_count(path) -> int:
    total = 0
    for cell in cells(path):
        total += sum('image/png' in o.get('data', {}) for o in cell.get('outputs', []))
        if cell['cell_type'] == 'markdown':
            total += ''.join(cell['source']).count('![')
    return total


def is_export(cell) -> bool:
    return cell['cell_type'] == 'code' and bool(EXPORT.match(''.join(cell['source']).lstrip()))


@pytest.mark.parametrize('part', CORE)
def test_each_core_part_shows_its_figures(part):
    counts = {p.name: figure_count(p) for p in chapters(part)}
    assert sum(counts.values()) >= FIGURES_AT_LEAST[part], counts


def test_the_tracks_are_the_core_and_the_reference():
    "parts.json holds two tracks; every part key names chapters, and no key sits in both."
    assert list(TRACKS) == ['The kernel, explained', 'Reference'], list(TRACKS)
    keys = [key for track in TRACKS.values() for key in track]
    assert len(keys) == len(set(keys)) and all(chapters(key) for key in keys), keys


def test_the_core_track_is_short_enough_to_finish():
    counts = {p.name: len(cells(p)) for part in CORE for p in chapters(part)}
    assert sum(counts.values()) <= CORE_CELLS_AT_MOST, (sum(counts.values()), counts)


@pytest.mark.parametrize('part', CORE)
def test_every_core_chapter_opens_with_a_figure(part):
    late = {p.name: (figure_cells(p) or [None])[0] for p in chapters(part)}
    late = {name: at for name, at in late.items() if at is None or at >= FIGURE_WITHIN}
    assert not late, f'first figure not within the first {FIGURE_WITHIN} cells: {late}'


def test_the_first_chapter_shows_the_failure_within_its_first_ten_cells():
    first = chapters('1')[0]
    assert figure_cells(first) and figure_cells(first)[0] < 10, (first.name, figure_cells(first))


def test_part_one_chapters_hold_at_most_25_export_cells():
    counts = {p.name: sum(map(is_export, cells(p))) for p in chapters('1')}
    assert max(counts.values()) <= 25, counts


@pytest.mark.parametrize('part', CORE)
def test_at_most_half_of_a_core_part_is_export_cells(part):
    books = [cells(p) for p in chapters(part)]
    exports = sum(is_export(c) for book in books for c in book)
    total = sum(len(book) for book in books)
    assert exports * 2 <= total, f'part {part}: {exports} export cells of {total}'


def test_every_slow_cell_carries_the_output_of_a_real_run():
    "A `#| slow` cell is skipped by nbdev_test, so its committed output is all a reader sees."
    bare = [f'{p.name} cell {i}' for p in sorted(NBS.glob('*.ipynb')) for i, c in enumerate(cells(p))
            if c['cell_type'] == 'code' and SLOW.search(''.join(c['source'])) and not c['outputs']]
    assert not bare, bare


def test_the_counts_see_what_they_count(tmp_path):
    "The counters on a notebook built here: one image output, one Markdown image, one export cell."
    book = [{'cell_type': 'markdown', 'source': ['![a figure](x.png)']},
            {'cell_type': 'code', 'source': ['#| export\n', 'x = 1'], 'outputs': []},
            {'cell_type': 'code', 'source': ['plot()'],
             'outputs': [{'data': {'image/png': 'iVBOR'}}]}]
    assert [is_export(c) for c in book] == [False, True, False]
    path = tmp_path / 'probe.ipynb'
    path.write_text(json.dumps({'cells': book}), encoding='utf-8')
    assert (figure_count(path), figure_cells(path)) == (2, [0, 2])


def test_every_figure_file_is_written_by_the_chapter_its_name_begins_with():
    "figures/ holds no stray file: each figure's name starts with the prefix of the notebook naming it."
    texts = {p.name.split('_')[0]: p.read_text(encoding='utf-8') for p in NBS.glob('*.ipynb')
             if p.name != 'index.ipynb'}
    strays = []
    for figure in sorted((NBS.parent / 'figures').glob('*.png')):
        owner = figure.name.split('_')[0]
        if figure.stem not in texts.get(owner, ''):
            strays.append(figure.name)
    assert not strays, strays
