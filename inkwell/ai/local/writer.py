"""Article drafting: a section plan for the structure, sentences from the phrase bank in the
brief's tone, filled to the requested length.

The length is met by budget, not by luck: headings, list items and FAQ questions are placed
first; the remaining words are shared out among paragraphs by weight; each paragraph is filled
sentence by sentence; then the whole draft is counted exactly as ``inkwell.ai.analysis`` counts
visible words and sentences are added or removed until it sits within a few words of the target.
Everything random comes from a generator seeded with the brief, so one brief gives one draft.

Tones: professional, friendly, casual, authoritative, conversational, persuasive (anything else
reads as professional). Structures: guide, listicle, how_to, comparison, review, question
(anything else is a guide). Lengths are clamped to 100..10,000 words. A given outline replaces
the structure's sections ("Introduction" is dropped, a conclusion or FAQ heading takes that role).
"""

import html
import random
import re
from dataclasses import dataclass, field

from inkwell.ai.analysis import count_occurrences, count_words
from inkwell.ai.local import phrases
from inkwell.ai.local.text import MODIFIERS, STOP_WORDS, content_words, seed_of, title_case, tokenize, with_acronyms
from inkwell.ai.types import STRUCTURES, TONES, ArticleBrief, ArticleDraft, FaqItem

MIN_WORDS = 100
MAX_WORDS = 10_000
KEYWORD_DENSITY = 0.012  # focus keyword occurrences per word the drafter aims for
META_TITLE_MAX = 60
META_DESCRIPTION_MAX = 160
_PREPOSITIONS = frozenset("for with in on near under without from of by at".split())
_NUMBER = re.compile(r"\b(\d{1,2})\b")
_NUMBERED = re.compile(r"^(?:step\s+\d+\s*:|\d+\.)\s*", re.IGNORECASE)
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# No sentence is said twice and no run of this many words either (inkwell.ai.quality reports
# both); when the phrase bank has nothing new left, a long draft ends shorter than asked. A
# paragraph stops short of the report's longest.
PHRASE_WORDS = 8
SENTENCE_TRIES = 8
MAX_PARAGRAPH_WORDS = 140


@dataclass
class _Paragraph:
    kind: str
    aspect: str
    secondary: str
    target: int
    sentences: list[str] = field(default_factory=list)
    fixed: bool = False  # FAQ answers: already written, and mirrored in ArticleDraft.faq


@dataclass
class _Block:
    tag: str  # "h2", "h3", "p", "ul"
    text: str = ""
    paragraph: _Paragraph | None = None
    items: list[str] = field(default_factory=list)


@dataclass
class _Section:
    heading: str
    kind: str
    secondary: str
    aspects: list[str]
    weight: float = 1.0
    subheadings: list[str] = field(default_factory=list)  # the brief's H3s under this H2


def write_article(brief: ArticleBrief) -> ArticleDraft:
    return _Drafter(brief).draft()


def outline_for(brief: ArticleBrief) -> list[str]:
    """The H2 headings ``write_article`` would use for the brief's structure, ending with the conclusion."""
    sections, conclusion, _faq_heading = _Drafter(brief).plan()
    return [section.heading for section in sections] + [conclusion]


def topic_of(keyword: str) -> str:
    """The keyword as a noun phrase for running text: search modifiers in front dropped
    ("best running shoes" -> "running shoes"), "how to X" read as "learning to X"."""
    words = keyword.split()
    lowered = [word.lower() for word in words]
    if lowered[:2] == ["how", "to"] and len(words) > 2:
        return "learning to " + " ".join(words[2:])
    for prefix in (("what", "is"), ("what", "are")):
        if tuple(lowered[:2]) == prefix and len(words) > 2:
            words, lowered = words[2:], lowered[2:]
            if lowered[0] in ("a", "an", "the") and len(words) > 1:
                words, lowered = words[1:], lowered[1:]
    while len(words) > 1 and lowered[0] in MODIFIERS:
        words, lowered = words[1:], lowered[1:]
    return " ".join(words)


def head_of(topic: str) -> str:
    """The topic up to its first preposition: "running shoes for flat feet" -> "running shoes"."""
    words = topic.split()
    for index, word in enumerate(words[1:], start=1):
        if word.lower() in _PREPOSITIONS:
            return " ".join(words[:index])
    return topic


def focus_keyword_of(brief: ArticleBrief) -> str:
    for keyword in brief.keywords:
        if keyword.strip():
            return with_acronyms(" ".join(keyword.split()))
    words = [word for word in tokenize(brief.title) if word not in STOP_WORDS and word not in MODIFIERS and not word.isdigit()]
    return " ".join(words[:3]) or "this topic"


def fit(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to ``limit`` characters, without a dangling small word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0] if " " in text[: limit + 1] else text[:limit]
    words = cut.split()
    while len(words) > 1 and (words[-1].lower() in STOP_WORDS or words[-1].lower() in ("and", "or", "-", "–", "—", "|")):
        words.pop()
    return " ".join(words).rstrip(",;:-–—|")[:limit]


class _Drafter:
    def __init__(self, brief: ArticleBrief):
        self.brief = brief
        voice_tone = brief.voice.tone if brief.voice is not None else ""
        self.tone = voice_tone if voice_tone in TONES else brief.tone if brief.tone in TONES else "professional"
        self.structure = brief.structure if brief.structure in STRUCTURES else "guide"
        self.target = max(MIN_WORDS, min(MAX_WORDS, int(brief.word_count or 0)))
        self.rng = random.Random(
            seed_of(
                "article", brief.title, tuple(brief.keywords), self.target, self.tone, self.structure, brief.include_faq, tuple(brief.outline), brief.description,
                *([brief.angle, brief.reader, tuple(brief.questions)] if brief.angle or brief.reader or brief.questions else []),
            )
        )
        self.keyword = focus_keyword_of(brief)
        self.topic = self._topic()
        self.head = head_of(self.topic)
        self.plural = is_plural(self.head)
        self.secondaries = self._secondaries()
        self.option_a, self.option_b = self._options()
        self.lexicon = phrases.LEXICON[self.tone]
        self.decks: dict[str, list] = {}
        self.words_written = 0
        self.keyword_uses = 0
        self.sentence_count = 0
        self.used: set[str] = set()  # sentences already in the article, without their openers
        self.phrases_used: set[tuple[str, ...]] = set()  # the article's runs of PHRASE_WORDS words
        self.cores: dict[str, str] = {}
        self.aspect_pool = self._aspect_pool()

    # -- inputs -----------------------------------------------------------------------------

    def _topic(self) -> str:
        """What running text calls the subject: a question keyword ("how often to replace running
        shoes") does not read as a noun, so the first plain keyword of the brief stands in for it."""
        topic = topic_of(self.keyword)
        if topic.split()[0].lower() not in phrases.QUESTION_WORDS:
            return topic
        plain = [keyword for keyword in self.brief.keywords[1:] if keyword.split() and keyword.split()[0].lower() not in phrases.QUESTION_WORDS]
        return topic_of(with_acronyms(" ".join(plain[0].split()))) if plain else topic

    def _secondaries(self) -> list[str]:
        seen = {self.keyword.lower()}
        result = []
        for keyword in self.brief.keywords:
            normalized = with_acronyms(" ".join(keyword.split()))
            if normalized and normalized.lower() not in seen:
                seen.add(normalized.lower())
                result.append(normalized)
        return result

    def _options(self) -> tuple[str, str]:
        for keyword in [self.keyword, *self.secondaries, self.brief.title]:
            parts = re.split(r"\s+(?:vs\.?|versus)\s+", keyword, flags=re.IGNORECASE)
            if len(parts) == 2:
                # A title goes on after the pair: "A vs B: Which Should You Choose?"
                first, second = parts[0].split(":")[-1].strip(), re.split(r"[:?!.]", parts[1])[0].strip()
                if first and second:
                    return first, second
        # Two keywords are alternatives when they share a content word ("trail running shoes", "road running shoes").
        for index, first in enumerate(self.secondaries):
            for second in self.secondaries[index + 1 :]:
                shared = set(content_words(first)) & set(content_words(second))
                if shared and topic_of(first).lower() != topic_of(second).lower():
                    return topic_of(first), topic_of(second)
        return f"budget {self.head}", f"premium {self.head}"

    def _aspect_pool(self) -> list[str]:
        """Aspects drawn from the secondary keywords first (what sets each apart from the topic), then neutral ones."""
        topic_words = set(tokenize(self.topic))
        aspects: list[str] = []
        for keyword in self.secondaries:
            if keyword.split()[0].lower() in phrases.QUESTION_WORDS:
                continue
            aspect = with_acronyms(" ".join(word for word in content_words(keyword) if word not in topic_words))
            if aspect and len(aspect.split()) <= 3 and aspect not in aspects:
                aspects.append(aspect)
        neutral = list(phrases.ASPECTS)
        self.rng.shuffle(neutral)
        return aspects + [aspect for aspect in neutral if aspect not in aspects]

    def _agreement(self) -> dict[str, str]:
        plural = self.plural
        return {
            "Is": "Are" if plural else "Is",
            "is": "are" if plural else "is",
            "Does": "Do" if plural else "Does",
            "does": "do" if plural else "does",
            "Matters": "Matter" if plural else "Matters",
        }

    # -- planning ---------------------------------------------------------------------------

    def _section_count(self) -> int:
        return max(1, min(10, round(self.target / 220)))

    def _faq_count(self) -> int:
        questions = len([question for question in self.brief.questions if question.strip()])
        if not self.brief.include_faq:
            return questions
        return max(questions, 2 if self.target < 600 else 3 if self.target < 1200 else 4 if self.target < 2500 else 5)

    def _wants_faq(self) -> bool:
        """An FAQ when the brief asks for one, or has questions the article must answer."""
        return bool(self.brief.include_faq or any(question.strip() for question in self.brief.questions))

    def plan(self) -> tuple[list[_Section], str, str | None]:
        """Body sections, the conclusion heading, and the FAQ heading (None without FAQ)."""
        conclusion = phrases.REVIEW_CONCLUSION_HEADING if self.structure == "review" else phrases.CONCLUSION_HEADINGS[self.tone]
        faq_heading = phrases.FAQ_HEADING if self._wants_faq() else None
        outline = [" ".join(item.split()) for item in self.brief.outline if item and item.strip()]
        if outline:
            sections = []
            for index, heading in enumerate(outline):
                if heading.startswith("###"):
                    # An H3 of the brief: a subsection of the H2 before it (or an H2 when none is).
                    subheading = heading.lstrip("#").strip()
                    if sections and subheading:
                        sections[-1].subheadings.append(subheading)
                        continue
                    heading = subheading or heading
                heading = heading.lstrip("#").strip() or heading
                lowered = heading.lower()
                if lowered in phrases.INTRO_HEADINGS:
                    continue
                if any(hint in lowered for hint in phrases.CONCLUSION_HINTS):
                    conclusion = heading
                elif any(hint in lowered for hint in phrases.FAQ_HINTS):
                    faq_heading = heading if self._wants_faq() else None
                else:
                    sections.append(self._section(self._kind_of(heading), heading, index))
            if sections:
                return sections, conclusion, faq_heading
        plan = [entry for entry in phrases.SECTION_PLANS[self.structure] if self.secondaries or "{Secondary}" not in entry[1]]
        count = self._section_count()
        if self.structure == "listicle":
            count = self._listicle_count(count)
        elif self.structure == "how_to":
            count = max(3, count)
        else:
            # A listicle's items and a how-to's steps are numbered, so only they may run past the plan's end.
            count = min(count, len(plan))
        sections = [self._section(plan[index % len(plan)][0], self._heading(plan[index % len(plan)][1], index), index) for index in range(count)]
        if self._keyword_is_question():
            # A question keyword is asked once, as the first section, instead of being forced into templates.
            sections[0] = self._section("question", title_case(self.keyword.rstrip("?")) + "?", 0)
        return sections, conclusion, faq_heading

    def _keyword_is_question(self) -> bool:
        return self.keyword.split()[0].lower() in phrases.QUESTION_WORDS and self.topic.lower() != topic_of(self.keyword).lower()

    def _listicle_count(self, count: int) -> int:
        """A listicle titled "7 ways to ..." gets seven items when the length allows."""
        match = _NUMBER.search(self.brief.title)
        if match and 3 <= int(match.group(1)) <= 15 and int(match.group(1)) * 60 <= self.target:
            return int(match.group(1))
        return max(3, count)

    def _kind_of(self, heading: str) -> str:
        lowered = f" {heading.lower()}"
        for hint, kind in phrases.KIND_HINTS:
            if hint in lowered:
                return kind
        if heading.endswith("?"):
            return "yes_no" if lowered.split()[0] in phrases.YES_NO_WORDS else "question"
        return "general"

    def _heading(self, template: str, index: int) -> str:
        secondary = self.secondaries[index % len(self.secondaries)] if self.secondaries else self.topic
        return template.format(
            n=index + 1,
            Kw=title_case(self.topic if self._keyword_is_question() else self.keyword),
            Topic=title_case(self.topic),
            Secondary=title_case(secondary),
            A=title_case(self.option_a),
            B=title_case(self.option_b),
            **self._agreement(),
        )

    def _section(self, kind: str, heading: str, index: int) -> _Section:
        secondary = self.secondaries[index % len(self.secondaries)] if self.secondaries else self.topic
        start = (index * 2) % len(self.aspect_pool)
        aspects = [self.aspect_pool[(start + offset) % len(self.aspect_pool)] for offset in range(3)]
        return _Section(heading=heading, kind=kind, secondary=secondary, aspects=aspects, weight=1.0 + 0.3 * self.rng.random())

    # -- drafting ---------------------------------------------------------------------------

    def draft(self) -> ArticleDraft:
        sections, conclusion_heading, faq_heading = self.plan()
        blocks = self._layout(sections, conclusion_heading)
        self._fill(blocks)
        faq = self._faq() if faq_heading else []
        if faq:
            # The FAQ goes before the conclusion, which stays the article's last word.
            conclusion_at = max(index for index, block in enumerate(blocks) if block.tag == "h2")
            faq_blocks = [_Block("h2", faq_heading)]
            for item in faq:
                faq_blocks.append(_Block("h3", item.question))
                faq_blocks.append(_Block("p", paragraph=_Paragraph("question", "", "", 0, [item.answer], fixed=True)))
            blocks[conclusion_at:conclusion_at] = faq_blocks
        blocks += self._reading_blocks()
        self._settle(blocks)
        outline = [block.text for block in blocks if block.tag == "h2"]
        return ArticleDraft(
            title=self.brief.title,
            meta_title=self._meta_title(),
            meta_description=self._meta_description(outline),
            focus_keyword=self.keyword,
            outline=outline,
            html="\n".join(self._html(block) for block in blocks),
            word_count=self._count(blocks),
            faq=faq,
        )

    def _layout(self, sections: list[_Section], conclusion_heading: str) -> list[_Block]:
        """Headings, lists and empty paragraphs with word targets; sentences come later."""
        faq_words = self._faq_count() * 45 + (3 if self._wants_faq() else 0)
        intro_target = max(35, round(self.target * 0.1))
        conclusion_target = max(30, round(self.target * 0.08))
        intro = _Paragraph("intro", self.aspect_pool[0], self.secondaries[0] if self.secondaries else self.topic, intro_target)
        blocks = [_Block("p", paragraph=intro)]
        paragraphs: list[tuple[_Paragraph, float]] = []
        subsections = self.target >= 600
        list_every = 2 if self.target >= 1200 else 3
        share = self.target / max(1, len(sections))
        for index, section in enumerate(sections):
            blocks.append(_Block("h2", section.heading))
            if section.subheadings:
                blocks.append(self._paragraph_block(section, section.aspects[0], paragraphs, section.weight * 0.5))
                for subheading in section.subheadings:
                    blocks.append(_Block("h3", subheading))
                    blocks.append(self._paragraph_block(section, subheading.lower().rstrip("?.!"), paragraphs, section.weight))
            elif subsections and share >= 250 and section.kind != "question":
                blocks.append(self._paragraph_block(section, section.aspects[0], paragraphs, section.weight * 0.5))
                for aspect in section.aspects[: 2 if share < 500 else 3]:
                    blocks.append(_Block("h3", title_case(aspect)))
                    blocks.append(self._paragraph_block(section, aspect, paragraphs, section.weight))
            else:
                blocks.append(self._paragraph_block(section, section.aspects[0], paragraphs, section.weight))
                if share >= 180:
                    blocks.append(self._paragraph_block(section, section.aspects[1], paragraphs, section.weight * 0.8))
            if section.kind in phrases.LIST_ITEMS and index % list_every == 0:
                items = self._list_items(section)
                if items:
                    blocks.append(_Block("ul", items=items))
        if not any(block.tag == "ul" for block in blocks) and self.target >= 200:
            first = sections[0]
            items = self._list_items(_Section(first.heading, "tips", first.secondary, first.aspects))
            if items:
                blocks.insert(3, _Block("ul", items=items))
        blocks.append(_Block("h2", conclusion_heading))
        blocks.append(_Block("p", paragraph=_Paragraph("conclusion", self.aspect_pool[0], self.topic, conclusion_target)))
        for block in blocks:
            if block.paragraph is None:
                for text in block.items or [block.text]:
                    self._accept(text)
        fixed = self._count(blocks) + faq_words
        remaining = max(len(paragraphs) * 18, self.target - fixed - intro_target - conclusion_target)
        total_weight = sum(weight for _paragraph, weight in paragraphs) or 1.0
        for paragraph, weight in paragraphs:
            paragraph.target = max(18, round(remaining * weight / total_weight))
        return blocks

    def _paragraph_block(self, section: _Section, aspect: str, paragraphs: list, weight: float) -> _Block:
        paragraph = _Paragraph(section.kind, aspect, section.secondary, 0)
        paragraphs.append((paragraph, weight))
        return _Block("p", paragraph=paragraph)

    def _list_items(self, section: _Section) -> list[str]:
        """Up to four bullets for the section, none that the article has listed already; no list
        (an empty one) when fewer than two new ones are left."""
        frames = list(phrases.LIST_ITEMS.get(section.kind, phrases.LIST_ITEMS["tips"]))
        self.rng.shuffle(frames)
        items = []
        for offset, frame in enumerate(frames):
            item = self._fill_slots(frame, aspect=section.aspects[offset % len(section.aspects)], secondary=section.secondary)
            item = item[:1].upper() + item[1:]
            if item in self.used or item in items:
                continue
            items.append(item)
            if len(items) == (3 if self.target < 800 else 4):
                break
        if len(items) < 2:
            return []
        for item in items:
            self.used.add(item)
        return items

    def _fill(self, blocks: list[_Block]) -> None:
        for block in blocks:
            paragraph = block.paragraph
            if paragraph is None or paragraph.sentences:
                continue
            words = 0
            while words < paragraph.target:
                sentence = self._sentence(paragraph, opening=paragraph.kind == "intro" and not paragraph.sentences)
                if sentence is None:
                    break  # nothing new left to say here: the paragraph ends rather than repeat itself
                size = count_words(sentence)
                if words and (words + size - paragraph.target > paragraph.target - words or words + size > MAX_PARAGRAPH_WORDS):
                    break
                paragraph.sentences.append(sentence)
                self._accept(sentence)
                words += size

    def _settle(self, blocks: list[_Block]) -> None:
        """Add or drop sentences until the visible word count is as close to the target as sentences allow."""
        paragraphs = [block.paragraph for block in blocks if block.paragraph is not None and not block.paragraph.fixed]
        total = self._count(blocks)
        turn = 0
        stuck = 0
        for _ in range(400):
            gap = self.target - total
            if abs(gap) <= 3:
                return
            if gap > 0:
                open_paragraphs = [paragraph for paragraph in paragraphs if self._paragraph_words(paragraph) < MAX_PARAGRAPH_WORDS]
                if not open_paragraphs:
                    return
                paragraph = open_paragraphs[turn % len(open_paragraphs)]
                turn += 1
                candidates = [sentence for sentence in (self._sentence(paragraph) for _ in range(4)) if sentence is not None]
                if not candidates:
                    stuck += 1
                    if stuck > len(open_paragraphs):
                        return  # the phrase bank has nothing new for any paragraph: shorter, never repeated
                    continue
                stuck = 0
                best = min(candidates, key=lambda sentence: abs(gap - count_words(sentence)))
                if abs(gap - count_words(best)) >= gap or self._paragraph_words(paragraph) + count_words(best) > MAX_PARAGRAPH_WORDS:
                    continue
                paragraph.sentences.append(best)
                self._accept(best)
                total += count_words(best)
            else:
                removable = [paragraph for paragraph in paragraphs if len(paragraph.sentences) > 1]
                if not removable:
                    return
                paragraph = max(removable, key=lambda item: len(item.sentences))
                size = count_words(paragraph.sentences[-1])
                if abs(gap + size) >= abs(gap):
                    return
                paragraph.sentences.pop()
                total -= size

    # -- sentences --------------------------------------------------------------------------

    def _sentence(self, paragraph: _Paragraph, *, opening: bool = False) -> str | None:
        """A sentence that says nothing the article has said: neither the sentence (without its
        opener) nor any run of ``PHRASE_WORDS`` words in it is in the article yet. None when the
        tries find none: the caller writes less rather than repeat itself."""
        off_voice = None
        for _ in range(SENTENCE_TRIES):
            core, sentence = self._compose(paragraph, opening=opening)
            if core in self.used or sentence in self.cores or self._repeats_phrase(sentence) or self._avoided(sentence):
                continue
            if not self._in_voice(sentence):
                off_voice = off_voice or (core, sentence)
                continue
            self.cores[sentence] = core
            return sentence
        if off_voice is not None:
            # The voice's person and sentence length are followed where the phrase bank allows.
            self.cores[off_voice[1]] = off_voice[0]
            return off_voice[1]
        return None

    def _avoided(self, sentence: str) -> bool:
        """Whether the sentence holds a word the site's voice never uses (never written)."""
        voice = self.brief.voice
        if voice is None or not voice.words_to_avoid:
            return False
        lowered = f" {' '.join(_WORDS.findall(sentence.lower()))} "
        return any(f" {' '.join(_WORDS.findall(word.lower()))} " in lowered for word in voice.words_to_avoid if word.strip())

    def _in_voice(self, sentence: str) -> bool:
        voice = self.brief.voice
        if voice is None:
            return True
        words = [word.lower() for word in _WORDS.findall(sentence)]
        if voice.sentence_words and len(words) > max(8, round(voice.sentence_words * 1.4)):
            return False
        if voice.person == "third" and ({"you", "your", "you're", "yours", "yourself"} & set(words)):
            return False
        return True

    def _phrases(self, text: str) -> set[tuple[str, ...]]:
        words = [word.lower() for word in _WORDS.findall(text)]
        return {tuple(words[index : index + PHRASE_WORDS]) for index in range(len(words) - PHRASE_WORDS + 1)}

    def _repeats_phrase(self, sentence: str) -> bool:
        return bool(self._phrases(sentence) & self.phrases_used)

    def _paragraph_words(self, paragraph: _Paragraph) -> int:
        return sum(count_words(sentence) for sentence in paragraph.sentences)

    def _compose(self, paragraph: _Paragraph, *, opening: bool) -> tuple[str, str]:
        """The sentence without and with the tone's opener."""
        asides, every = phrases.ASIDES[self.tone]
        self.sentence_count += 1
        if opening:
            # The first sentence of the article names the focus keyword exactly.
            sentence = self._fill_slots(self._opening_frame(), aspect=paragraph.aspect, secondary=paragraph.secondary, subject=self.keyword)
        elif paragraph.kind not in ("intro", "question", "yes_no") and self.sentence_count % every == 0:
            sentence = self._fill_slots(self._deal("aside", asides), aspect=paragraph.aspect, secondary=paragraph.secondary)
        else:
            sentence = self._fill_slots(self._frame(paragraph.kind), aspect=paragraph.aspect, secondary=paragraph.secondary)
            core = self._finish(sentence)
            if self._takes_opener(sentence) and self.rng.random() < phrases.OPENER_RATE[self.tone]:
                opener = self._deal("opener", phrases.OPENERS[self.tone])
                if opener.endswith("?"):
                    # After "You know what?" a new sentence starts; after "In practice," the same one goes on.
                    sentence = f"{opener} {sentence}"
                elif not (opener.endswith(" that") and sentence.split()[0].lower() in phrases.IMPERATIVES):
                    sentence = f"{opener} {sentence[:1].lower()}{sentence[1:]}"
            return core, self._finish(sentence)
        sentence = self._finish(sentence)
        return sentence, sentence

    def _finish(self, sentence: str) -> str:
        sentence = self._voice(sentence)
        return sentence[:1].upper() + sentence[1:]

    def _opening_frame(self) -> str:
        """An intro frame that names the subject, taken out of the intro deck so it is not dealt twice."""
        self._deal("intro", phrases.FRAMES["intro"])
        deck = self.decks["intro"]
        choice = next((frame for frame in deck if "{subject}" in frame), None) or next(frame for frame in phrases.FRAMES["intro"] if "{subject}" in frame)
        if choice in deck:
            deck.remove(choice)
        return choice

    @staticmethod
    def _takes_opener(sentence: str) -> bool:
        """No opener before a question, or before a sentence that already opens with its own phrase ("Put simply, ...")."""
        if sentence.endswith("?"):
            return False
        comma = sentence.find(",")
        return comma < 0 or count_words(sentence[:comma]) > 4

    def _accept(self, text: str) -> None:
        self.used.add(self.cores.get(text, text))
        self.phrases_used |= self._phrases(text)
        self.words_written += count_words(text)
        self.keyword_uses += count_occurrences(text, self.keyword)

    def _deal(self, name: str, items) -> str:
        """Items are dealt from a shuffled deck so none repeats before all have been used."""
        deck = self.decks.get(name)
        if not deck:
            deck = list(items)
            self.rng.shuffle(deck)
            self.decks[name] = deck
        return deck.pop()

    def _frame(self, kind: str) -> str:
        """Mostly the section kind's own frames, now and then a general one."""
        if kind not in ("intro", "conclusion", "general") and self.rng.random() < 0.2:
            kind = "general"
        return self._deal(kind, phrases.FRAMES[kind])

    def _subject(self) -> str:
        """The focus keyword while it is below the target density, otherwise a shorter reference to it."""
        if self.keyword_uses < max(1.0, (self.words_written + 20) * KEYWORD_DENSITY):
            return self.keyword
        references = [reference for reference in (self.topic, self.head) if reference.lower() != self.keyword.lower()]
        return self.rng.choice(references) if references else "this topic"

    def _fill_slots(self, frame: str, *, aspect: str, secondary: str, subject: str | None = None) -> str:
        values = {
            # When the keyword is already the bare topic, the topic slot is one more use of it.
            "topic": self._subject() if "{topic}" in frame and self.topic.lower() == self.keyword.lower() else self.topic,
            "aspect": aspect,
            "secondary": secondary,
            "option_a": self.option_a,
            "option_b": self.option_b,
            "piece": phrases.PIECE[self.structure],
            "aspects": self._aspect_list(),
            **self._agreement(),
        }
        for slot in ("should", "consider", "important", "easier"):
            values[slot] = self.rng.choice(self.lexicon[slot])
        if "{subject}" in frame:
            values["subject"] = subject or self._subject()
        return re.sub(r"\{(\w+)\}", lambda match: values.get(match.group(1), match.group(0)), frame)

    def _aspect_list(self) -> str:
        first, second, third = self.aspect_pool[:3]
        return f"{first}, {second} and {third}"

    def _voice(self, sentence: str) -> str:
        if self.tone in phrases.CONTRACTING_TONES:
            for long, short in phrases.CONTRACTIONS:
                sentence = re.sub(rf"\b{long}\b", short, sentence)
                sentence = re.sub(rf"\b{long.capitalize()}\b", short.capitalize(), sentence)
        return sentence

    # -- FAQ --------------------------------------------------------------------------------

    def _faq(self) -> list[FaqItem]:
        # The brief's questions first: the article must answer them.
        questions = [" ".join(question.split()) for question in self.brief.questions if question.strip()]
        for keyword in self.brief.keywords:
            words = keyword.split()
            if words and words[0].lower() in phrases.QUESTION_WORDS:
                question = with_acronyms(" ".join(words)).rstrip("?")
                if question.lower().startswith("how to "):
                    question = "how do you " + question[len("how to ") :]
                questions.append(question[:1].upper() + question[1:] + "?")
        frames = list(phrases.FAQ_QUESTIONS)
        self.rng.shuffle(frames)
        for frame in frames:
            question = self._fill_slots(frame, aspect="", secondary="")
            questions.append(question[:1].upper() + question[1:])
        items = []
        for index, question in enumerate(list(dict.fromkeys(questions))[: self._faq_count()]):
            self._accept(question)
            kind = "yes_no" if question.split()[0].lower() in phrases.YES_NO_WORDS else "question"
            paragraph = _Paragraph(kind, self.aspect_pool[(index + 1) % len(self.aspect_pool)], self.topic, 40)
            answer = []
            for _ in range(2 + index % 2):
                sentence = self._sentence(paragraph)
                if sentence is None:
                    break
                self._accept(sentence)
                answer.append(sentence)
            if answer:
                items.append(FaqItem(question=question, answer=" ".join(answer)))
        return items

    # -- output -----------------------------------------------------------------------------

    def _count(self, blocks: list[_Block]) -> int:
        total = 0
        for block in blocks:
            if block.paragraph is not None:
                total += sum(count_words(sentence) for sentence in block.paragraph.sentences)
            elif block.tag == "ul":
                total += sum(count_words(item.split("\x00")[1] if item.startswith("\x00") else item) for item in block.items)
            else:
                total += count_words(block.text)
        return total

    def _reading_blocks(self) -> list[_Block]:
        """The brief's internal links and the URLs of its sources, as linked lists after the
        conclusion: the drafter cannot read a source, so it names them and claims nothing from them."""
        blocks = []
        links = [(link.title, link.url) for link in self.brief.internal_links if link.url]
        if links:
            blocks += [_Block("h2", "Related Articles"), _Block("ul", items=[f"\x00{title}\x00{url}" for title, url in links])]
        urls = [source.strip() for source in self.brief.sources if re.match(r"https?://\S+$", source.strip())]
        if urls:
            blocks += [_Block("h2", "Sources"), _Block("ul", items=[f"\x00{url}\x00{url}" for url in urls])]
        return blocks

    def _html(self, block: _Block) -> str:
        if block.paragraph is not None:
            return f"<p>{html.escape(' '.join(block.paragraph.sentences), quote=False)}</p>"
        if block.tag == "ul":
            items = "".join(f"<li>{self._item_html(item)}</li>" for item in block.items)
            return f"<ul>{items}</ul>"
        return f"<{block.tag}>{html.escape(block.text, quote=False)}</{block.tag}>"

    @staticmethod
    def _item_html(item: str) -> str:
        if item.startswith("\x00"):
            _empty, text, url = item.split("\x00", 2)
            return f'<a href="{html.escape(url, quote=True)}">{html.escape(text, quote=False)}</a>'
        return html.escape(item, quote=False)

    def _meta_title(self) -> str:
        title = " ".join(self.brief.title.split())
        if not count_occurrences(title, self.keyword):
            prefixed = f"{title_case(self.keyword)}: {title}"
            if len(prefixed) <= META_TITLE_MAX:
                return prefixed
        if len(title) <= META_TITLE_MAX:
            return title
        for separator in (": ", " – ", " — ", " - ", " | "):
            first = title.split(separator, 1)[0]
            if separator in title and 20 <= len(first) <= META_TITLE_MAX:
                return first
        return fit(title, META_TITLE_MAX)

    def _meta_description(self, outline: list[str]) -> str:
        description = " ".join(self.brief.description.split())
        if description and count_occurrences(description, self.keyword) and len(description) >= 70:
            return fit(description, META_DESCRIPTION_MAX)
        if description:
            return fit(f"{title_case(self.keyword)}: {description}", META_DESCRIPTION_MAX)
        keyword = self.keyword
        piece = phrases.PIECE[self.structure]
        guide = phrases.PIECE_WITH_PREPOSITION[self.structure]
        lead = {
            "professional": f"A practical {guide} {keyword}",
            "friendly": f"Your friendly {guide} {keyword}",
            "casual": f"A no-fuss {guide} {keyword}",
            "authoritative": f"The definitive {guide} {keyword}",
            "conversational": f"Curious about {keyword}? This {piece} talks you through it",
            "persuasive": f"Get more from {keyword} with this {piece}",
        }[self.tone]
        sections = [_NUMBERED.sub("", heading).rstrip("?").lower() for heading in outline[:-1] if heading != phrases.FAQ_HEADING][:3]
        candidates = [f"{lead}: {', '.join(sections)}, and more." if sections else "", f"{lead}, with clear advice you can use today.", f"{lead}."]
        fitting = [candidate for candidate in candidates if candidate and len(candidate) <= META_DESCRIPTION_MAX]
        for candidate in fitting:
            if len(candidate) >= 70:
                return candidate
        return max(fitting, key=len) if fitting else fit(candidates[-1], META_DESCRIPTION_MAX)


def is_plural(phrase: str) -> bool:
    """Whether a noun phrase reads as plural, from its last word: "running shoes" yes, "fitness" no."""
    words = phrase.lower().split()
    if not words:
        return False
    last = words[-1]
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is", "ics", "ness"))
