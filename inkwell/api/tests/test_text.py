"""Messages agree in number (issue 14)."""

from inkwell.api.text import counted, has, was


def test_a_count_of_one_takes_the_singular_and_its_verb():
    assert f"{counted(1, 'keyword')} {was(1)} added" == "1 keyword was added"
    assert f"{counted(0, 'keyword')} {was(0)} added" == "0 keywords were added"
    assert f"{counted(3, 'image')} {has(3)} no alt text" == "3 images have no alt text"
    assert counted(1, "monthly credit") == "1 monthly credit" and counted(2, "child", "children") == "2 children"
