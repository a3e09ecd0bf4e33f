"""Course lessons and their hand-outs: no solution survives in a hand-out, and every hand-out runs
to its end with plots shown and each exercise's check saying "not answered yet"."""

import ast
import re

import nbformat
import pytest

from model import course, handout
from model.errors import UserError

LESSONS = sorted(handout.LESSONS.glob("*.ipynb"))


def compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def solutions(lesson: nbformat.NotebookNode) -> list[str]:
    """Every statement of every solution block, and the value of each assignment, compacted."""
    found = []
    for cell in lesson.cells:
        if cell.cell_type == "code":
            for block in handout.split(cell.source, "lesson")[1]:
                for statement in ast.parse("\n".join(block)).body:
                    found.append(compact(ast.unparse(statement)))
                    if isinstance(statement, ast.Assign):
                        found.append(compact(ast.unparse(statement.value)))
    return found


def texts(notebook: nbformat.NotebookNode) -> list[str]:
    """Each cell's text, compacted; code first put in one spelling (quotes, parentheses)."""
    return [
        compact(ast.unparse(ast.parse(c.source)) if c.cell_type == "code" else c.source)
        for c in notebook.cells
    ]


def checks(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The exercise cells: those that call check() on an answer."""
    exercise = re.compile(r"\bcheck\(\s*answer_")
    return [c for c in notebook.cells if c.cell_type == "code" and exercise.search(c.source)]


def printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def images(notebook: nbformat.NotebookNode) -> int:
    return sum(
        "image/png" in o.get("data", {}) for c in notebook.cells for o in c.get("outputs", [])
    )


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    out = tmp_path_factory.mktemp("handouts")
    handout.build(out, timeout_s=120)
    return {p.name: nbformat.read(p, as_version=4) for p in out.glob("*.ipynb")}


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_exercise_of_a_lesson_has_one_marked_solution(lesson):
    notebook = nbformat.read(lesson, as_version=4)
    exercises = checks(notebook)
    assert exercises
    for cell in exercises:
        assert len(handout.split(cell.source, lesson.name)[1]) == 1, cell.source


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_no_solution_survives_in_the_handout(lesson, handouts):
    source = nbformat.read(lesson, as_version=4)
    given = handouts[lesson.name]
    shown = texts(given)
    for solution in solutions(source):
        assert not any(solution in text for text in shown), f"{lesson.name} shows {solution}"
    assert not any(handout.BEGIN in c.source or handout.END in c.source for c in given.cells)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_the_handout_runs_to_its_end_with_its_plots(lesson, handouts):
    given = handouts[lesson.name]
    code = [c for c in given.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{lesson.name} stopped before its end"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert images(given) == images(nbformat.read(lesson, as_version=4))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_each_check_in_the_handout_says_not_answered_yet(lesson, handouts):
    for cell in checks(handouts[lesson.name]):
        assert course.NOT_ANSWERED in printed(cell), cell.source
        assert "correct" not in printed(cell)


def test_the_check_passes_a_right_answer_and_stops_on_a_wrong_one(capsys):
    course.check(0.5, 0.502)
    assert capsys.readouterr().out == "correct: 0.5\n"
    with pytest.raises(AssertionError, match="0.4 is not 0.5"):
        course.check(0.4, 0.5)
    with pytest.raises(AssertionError, match="3 is not 4"):
        course.check(3, 4, rel=0)


def test_an_unclosed_solution_block_names_the_cell():
    with pytest.raises(UserError) as error:
        handout.split("answer_1 = None\n### BEGIN SOLUTION\nanswer_1 = 2\n", "02.ipynb cell 6")
    assert error.value.line().startswith("02.ipynb cell 6: ### BEGIN SOLUTION: is never closed")


def test_a_missing_lesson_is_one_line_and_status_2(tmp_path, capsys):
    assert handout.main(["nowhere.ipynb", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "nowhere.ipynb: no such notebook"
