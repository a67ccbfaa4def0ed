"""The pure linking core (``link_html``, ``LinkIndex``) on hand-written HTML, one rule per test."""

from inkwell.linker.selectors import Target
from inkwell.linker.services import Link, LinkIndex, link_html, url_key

SHOES = Target(1, "/running-shoes/", ("running shoes",))
TRAIL = Target(2, "https://blog.example.com/trail-running-shoes/", ("trail running shoes", "trail shoes"))
SOCKS = Target(3, "/socks/", ("socks",))


def anchors(links: list[Link]) -> list[tuple[str, int]]:
    return [(link.anchor_text, link.target_content_id) for link in links]


def test_a_phrase_in_the_text_becomes_a_link_to_its_target():
    html, links = link_html(html="<p>Pick running shoes that fit.</p>", targets=[SHOES], max_links=5)

    assert html == '<p>Pick <a href="/running-shoes/">running shoes</a> that fit.</p>'
    assert links == [Link(anchor_text="running shoes", target_content_id=1, url="/running-shoes/")]


def test_matching_ignores_case_and_keeps_the_original_casing():
    html, links = link_html(html="<p>Most Running SHOES wear out in a year.</p>", targets=[SHOES], max_links=5)

    assert html == '<p>Most <a href="/running-shoes/">Running SHOES</a> wear out in a year.</p>'
    assert anchors(links) == [("Running SHOES", 1)]


def test_only_whole_words_match():
    for text in ("<p>The runningshoes brand.</p>", "<p>Old running shoesmith.</p>", "<p>Our trail-running shoes.</p>", "<p>My running_shoes folder.</p>"):
        html, links = link_html(html=text, targets=[SHOES], max_links=5)
        assert (html, links) == (text, []), text


def test_words_of_a_phrase_may_be_split_by_any_whitespace_but_not_by_punctuation():
    html, links = link_html(html="<p>New running\n   shoes.</p><p>Fast running, shoes later.</p>", targets=[SHOES], max_links=5)

    assert html == '<p>New <a href="/running-shoes/">running\n   shoes</a>.</p><p>Fast running, shoes later.</p>'
    assert anchors(links) == [("running\n   shoes", 1)]


def test_headings_existing_links_code_and_scripts_are_never_linked():
    html = (
        "<h1>Running shoes</h1><h2>Running shoes</h2><h3>Running <em>shoes</em> and socks</h3><h6>Socks</h6>"
        '<p><a href="/other/">running shoes</a> <code>running shoes</code></p><pre>socks</pre>'
        "<script>var socks = 'running shoes';</script><style>.socks {}</style>"
    )

    assert link_html(html=html, targets=[SHOES, SOCKS], max_links=5) == (html, [])


def test_text_after_a_closed_exclusion_is_linked_again():
    html, links = link_html(html="<p><code>socks</code> and socks</p>", targets=[SOCKS], max_links=5)

    assert html == '<p><code>socks</code> and <a href="/socks/">socks</a></p>'
    assert anchors(links) == [("socks", 3)]


def test_attributes_are_never_changed():
    source = '<p title="running shoes"><img src="/a.png" alt="running shoes"> Running shoes</p>'

    html, links = link_html(html=source, targets=[SHOES], max_links=5)

    assert html == '<p title="running shoes"><img src="/a.png" alt="running shoes"> <a href="/running-shoes/">Running shoes</a></p>'
    assert len(links) == 1


def test_a_target_gets_one_link_however_often_its_phrase_appears():
    html, links = link_html(html="<p>Running shoes.</p><p>More running shoes.</p><p>Trail shoes.</p>", targets=[SHOES], max_links=5)

    assert html.count("<a ") == 1
    assert anchors(links) == [("Running shoes", 1)]


def test_a_phrase_shared_by_two_targets_links_to_the_first_only():
    other = Target(9, "/other-shoes/", ("running shoes",))

    html, links = link_html(html="<p>Running shoes.</p><p>Again running shoes.</p>", targets=[SHOES, other], max_links=5)

    assert anchors(links) == [("Running shoes", 1)]
    assert "/other-shoes/" not in html


def test_the_longest_phrase_wins_where_phrases_overlap():
    html, links = link_html(html="<p>Buy trail running shoes today.</p>", targets=[SHOES, TRAIL], max_links=5)

    assert html == '<p>Buy <a href="https://blog.example.com/trail-running-shoes/">trail running shoes</a> today.</p>'
    assert anchors(links) == [("trail running shoes", 2)]


def test_the_maximum_per_article_is_respected():
    targets = [Target(n, f"/t{n}/", (f"topic{n}",)) for n in range(1, 8)]
    text = "".join(f"<p>About topic{n}.</p>" for n in range(1, 8))

    html, links = link_html(html=text, targets=targets, max_links=3)

    assert [link.target_content_id for link in links] == [1, 2, 3]
    assert html.count("<a ") == 3


def test_links_spread_one_per_paragraph_before_a_second_in_the_same_paragraph():
    text = "<p>Socks and running shoes.</p><p>Nothing here.</p><ul><li>Trail shoes</li></ul>"

    html, links = link_html(html=text, targets=[SHOES, TRAIL, SOCKS], max_links=5)

    # Longest first: "running shoes" takes the first paragraph, "trail shoes" the list item; only
    # then does "socks" share a paragraph.
    assert anchors(links) == [("Socks", 3), ("running shoes", 1), ("Trail shoes", 2)]
    assert html == (
        '<p><a href="/socks/">Socks</a> and <a href="/running-shoes/">running shoes</a>.</p><p>Nothing here.</p>'
        '<ul><li><a href="https://blog.example.com/trail-running-shoes/">Trail shoes</a></li></ul>'
    )


def test_a_limit_reached_within_the_spreading_leaves_crowded_paragraphs_alone():
    text = "<p>Socks and running shoes.</p><p>Trail shoes.</p>"

    _, links = link_html(html=text, targets=[SHOES, TRAIL, SOCKS], max_links=2)

    assert anchors(links) == [("running shoes", 1), ("Trail shoes", 2)]


def test_the_article_itself_is_never_a_target():
    index = LinkIndex([SHOES, SOCKS])

    html, links = index.link("<p>Running shoes and socks.</p>", 5, exclude_content_id=1)

    assert html == '<p>Running shoes and <a href="/socks/">socks</a>.</p>'
    assert anchors(links) == [("socks", 3)]


def test_the_articles_own_focus_keyword_stays_unlinked():
    index = LinkIndex([SHOES, SOCKS])

    _, links = index.link("<p>Running shoes and socks.</p>", 5, own_phrases=["Running  Shoes"])

    assert anchors(links) == [("socks", 3)]


def test_running_again_on_the_output_changes_nothing():
    first, links = link_html(html="<p>Socks, trail shoes and running shoes.</p><p>Running shoes again.</p>", targets=[SHOES, TRAIL, SOCKS], max_links=5)

    assert len(links) == 3
    assert link_html(html=first, targets=[SHOES, TRAIL, SOCKS], max_links=5) == (first, [])


def test_an_existing_link_to_a_target_by_any_of_its_addresses_counts():
    target = Target(1, "https://blog.example.com/running-shoes/", ("running shoes",), known_urls=("/running-shoes/",))
    for href in ("https://blog.example.com/running-shoes", "http://www.blog.example.com/running-shoes/#top", "/running-shoes"):
        source = f'<p>Running shoes. <a href="{href}">Our guide</a></p>'
        assert link_html(html=source, targets=[target], max_links=5) == (source, []), href


def test_existing_links_to_targets_count_towards_the_maximum():
    source = '<p>See <a href="/socks/">our socks</a>.</p><p>Running shoes and trail shoes.</p>'

    html, links = link_html(html=source, targets=[SHOES, TRAIL, SOCKS], max_links=2)

    assert anchors(links) == [("Running shoes", 1)]
    assert link_html(html=html, targets=[SHOES, TRAIL, SOCKS], max_links=2) == (html, [])


def test_markup_around_the_links_is_kept_byte_for_byte():
    source = (
        '<!DOCTYPE html><!-- a comment --><div class="x"  data-a=\'1\'>\n<p>Tom&apos;s &amp; Jerry&#39;s '
        "<strong>running shoes</strong> &nbsp;&lt;3</p><br/><img src=x.png alt=''></div>"
    )

    html, links = link_html(html=source, targets=[SHOES], max_links=5)

    assert html == source.replace("<strong>running shoes</strong>", '<strong><a href="/running-shoes/">running shoes</a></strong>')
    assert anchors(links) == [("running shoes", 1)]


def test_text_that_gets_a_link_is_escaped_again():
    html, _ = link_html(html="<p>Socks &amp; shoes &lt;cheap&gt;</p>", targets=[SOCKS], max_links=5)

    assert html == '<p><a href="/socks/">Socks</a> &amp; shoes &lt;cheap&gt;</p>'


def test_a_url_is_escaped_in_its_attribute():
    target = Target(4, '/a?b=1&c="2"', ("socks",))

    html, _ = link_html(html="<p>socks</p>", targets=[target], max_links=5)

    assert html == '<p><a href="/a?b=1&amp;c=&quot;2&quot;">socks</a></p>'


def test_unclosed_and_stray_tags_do_not_confuse_the_exclusions():
    html, links = link_html(html="<h2>Socks<p>socks</p></h2><p>Socks</b> <i>running shoes", targets=[SHOES, SOCKS], max_links=5)

    assert html == '<h2>Socks<p>socks</p></h2><p><a href="/socks/">Socks</a></b> <i><a href="/running-shoes/">running shoes</a>'
    assert anchors(links) == [("Socks", 3), ("running shoes", 1)]


def test_nothing_to_link_in_empty_or_plain_input():
    assert link_html(html="", targets=[SHOES], max_links=5) == ("", [])
    assert link_html(html="running shoes", targets=[SHOES], max_links=0) == ("running shoes", [])
    assert link_html(html="Plain running shoes", targets=[SHOES], max_links=5) == ('Plain <a href="/running-shoes/">running shoes</a>', [Link("running shoes", 1, "/running-shoes/")])


def test_url_keys_ignore_scheme_www_trailing_slash_and_fragment():
    assert url_key(url="https://www.Example.com/a/#x") == url_key(url="http://example.com/a") == ("example.com", "/a", "")
    assert url_key(url="/a/") == ("", "/a", "")
    assert url_key(url="/a?b=1") != url_key(url="/a")
