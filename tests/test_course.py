"""Course lessons: exercises are checked, and without the solutions parameter they ask for answers."""

import papermill
import pytest

from model import paths

LESSONS = sorted((paths.NOTEBOOKS / "course").glob("*.ipynb"))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_without_solutions_the_first_exercise_asks_for_an_answer(lesson, tmp_path):
    with pytest.raises(papermill.PapermillExecutionError) as failure:
        papermill.execute_notebook(
            str(lesson),
            str(tmp_path / "out.ipynb"),
            parameters={"solutions": False},
            kernel_name="python3",
            progress_bar=False,
            cwd=str(lesson.parent),
        )
    assert "fill in your answer" in str(failure.value)
