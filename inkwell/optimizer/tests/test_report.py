"""The optimizer's score, metrics and suggestions on hand-written articles with known values.

The article of ``articles.body()``, worked out by hand:

- words: 9 (first paragraph) + 4 (H2) + 280 (filler) + 10 (links paragraph) + 5 (last) = 308;
- the focus keyword "trail shoes" three times: density 3 / 308 = 0.97 %;
- sentences 1 + 1 + 40 + 1 + 1 = 44; syllables 9 + 5 ("matter" has two) + 280 + 10 + 5 = 309;
  Flesch 206.835 - 1.015 x 308 / 44 - 84.6 x 309 / 308 = 114.86, shown as 114.9;
- every check of the content analysis passes (100), the target of 300 words is met, two internal
  links (relative; the site's domain with www.), one external, two images with alt text: 100.
"""

from inkwell.optimizer.selectors import link_kind, report
from inkwell.optimizer.tests import articles
from inkwell.optimizer.tests.articles import INTERNAL, body, context, fields


def test_a_complete_article_scores_100_with_its_measured_metrics():
    result = report(**fields(), context=context())

    assert result.score == 100
    assert result.suggestions == []
    assert result.metrics == {
        "word_count": 308,
        "target_word_count": 300,
        "focus_keyword": "trail shoes",
        "keyword_in_title": True,
        "keyword_in_first_paragraph": True,
        "keyword_in_headings": True,
        "keyword_in_meta_description": True,
        "keyword_density": 0.97,
        "headings": {"h1": 0, "h2": 1, "h3": 0, "h4": 0, "h5": 0, "h6": 0},
        "readability": 114.9,
        "meta_title_length": 40,
        "meta_description_length": 106,
        "internal_links": 2,
        "external_links": 1,
        "images": 2,
        "images_without_alt": 0,
        "text_analysis_score": 100,
    }


def test_words_short_of_the_target_cost_points_in_proportion():
    result = report(**fields(), context=context(target=616))

    # 308 / 616 = 50 % of the target: 8 x 0.5 / 0.9 = 4.44 of the 8 points.
    assert result.score == 96
    assert result.metrics["target_word_count"] == 616
    assert result.suggestions == ["The text has 308 words against a target of 616; add about 308 words"]


def test_internal_links_count_relative_paths_and_the_sites_own_hosts():
    one_internal = body(internal=f'{INTERNAL} and <a href="#care">shoe care</a>')
    cms_host = body(internal=f'{INTERNAL} and <a href="https://cms.example.net/care/">shoe care</a>')
    none = body(internal='<a href="mailto:a@example.com">our socks guide</a> and <a href="tel:123">shoe care</a>')

    assert report(**fields(html=cms_host), context=context()).score == 100
    result = report(**fields(html=one_internal), context=context())
    assert (result.score, result.metrics["internal_links"]) == (97, 1)
    assert result.suggestions == ["The text has 1 internal link; link at least 2 related articles of this site (the linker can add them)"]
    result = report(**fields(html=none), context=context())
    assert (result.score, result.metrics["internal_links"], result.metrics["external_links"]) == (94, 0, 1)


def test_an_article_without_external_links_loses_their_points():
    result = report(**fields(html=body(external='<a href="/maps/">trail maps</a>')), context=context())

    assert (result.score, result.metrics["internal_links"], result.metrics["external_links"]) == (98, 3, 0)
    assert result.suggestions == ["The text has no external links; cite at least one authoritative source"]


def test_images_and_their_alt_text():
    no_alt = body(images='<img src="/a.png" alt="Shoes on a wet rock"><img src="/b.png" alt=" ">')
    no_images = body(images="")

    result = report(**fields(html=no_alt), context=context())
    assert (result.score, result.metrics["images"], result.metrics["images_without_alt"]) == (99, 2, 1)
    assert result.suggestions == ["1 of 2 images has no alt text; describe each image in its alt text"]
    result = report(**fields(html=no_images), context=context())
    assert (result.score, result.metrics["images"]) == (96, 0)
    assert result.suggestions == ["The article has no images; add at least one, with alt text"]


def test_images_generated_for_the_content_count_with_those_in_the_body():
    result = report(**fields(html=body(images="")), context=context(generated_image_alts=("A runner on a ridge", "")))

    assert (result.score, result.metrics["images"], result.metrics["images_without_alt"]) == (99, 2, 1)


def test_the_content_analysis_weighs_80_percent():
    # No meta description: its 10 points and the 5 of the keyword in it are lost, 85 x 0.8 = 68.
    result = report(**fields(meta_description=""), context=context())

    assert result.metrics["text_analysis_score"] == 85
    assert result.score == 88
    assert result.suggestions == ["The focus keyword is not in the meta description", "Meta description is missing"]


def test_an_empty_article_scores_what_little_it_earns():
    result = report(html="", title="", meta_title="", meta_description="", focus_keyword="", context=context())

    assert result.metrics["word_count"] == 0
    # The analysis gives 5 (no structure problems) + 5 (no long paragraph) = 10, x 0.8 = 8.
    assert result.score == 8
    assert "The article has no images; add at least one, with alt text" in result.suggestions


def test_link_kinds():
    hosts = articles.SITE_HOSTS
    assert link_kind("/a/", hosts) == link_kind("a.html", hosts) == link_kind("https://EXAMPLE.com/x", hosts) == "internal"
    assert link_kind("http://www.example.com", hosts) == link_kind("https://cms.example.net/", hosts) == "internal"
    assert link_kind("https://other.org/", hosts) == link_kind("//cdn.example.org/x", hosts) == link_kind("https://blog.example.com/", hosts) == "external"
    for nowhere in ("#top", "mailto:a@b.c", "tel:+1", "javascript:void(0)", " ", "http://[::1"):
        assert link_kind(nowhere, hosts) is None, nowhere
