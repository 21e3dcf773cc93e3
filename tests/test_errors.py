"""The exception hierarchy's messages: an unknown name lists the valid ones and, when
one is a likely typo or reordering of it, says which."""

from __future__ import annotations

from robotsim.errors import InputError, UnknownNameError


def test_unknown_name_suggests_the_same_words_in_another_order_and_near_spellings() -> None:
    valid = ["torso", "foot_left", "foot_right", "tool", "Left-Hand"]
    e = UnknownNameError("link", "left_foot", valid)
    assert str(e) == (
        "unknown link 'left_foot'; valid: torso, foot_left, foot_right, tool, Left-Hand; "
        "did you mean 'foot_left'?"
    )
    assert str(UnknownNameError("link", "hand_left", valid)).endswith("did you mean 'Left-Hand'?")
    assert str(UnknownNameError("link", "tol", valid)).endswith("did you mean 'tool'?")
    assert isinstance(e, InputError) and isinstance(e, KeyError)


def test_unknown_name_without_a_close_one_only_lists_the_valid_names() -> None:
    assert str(UnknownNameError("joint", "nose", ["joint1", "joint2"])) == (
        "unknown joint 'nose'; valid: joint1, joint2"
    )
    many = [f"link{i}" for i in range(30)]
    msg = str(UnknownNameError("link", "lnk29", many))
    assert "(+10 more); did you mean 'link29' or " in msg  # the closest first, beyond the 20
    assert str(UnknownNameError("link", "", many)).endswith("(+10 more)")
