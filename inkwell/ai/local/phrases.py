"""The local drafter's phrase bank: sentence frames by section kind, and what each tone changes.

Frames are whole sentences with slots filled from the brief: {subject} (the focus keyword, or a
shorter reference when the keyword is already frequent), {topic}, {aspect} (what the current
section or subsection is about), {secondary} (another keyword of the brief), {option_a} and
{option_b} (the two sides of a comparison), {piece} ("this guide", "this review", ...), {aspects}
(the article's first aspects, listed), the tone words {should}, {consider}, {important} and
{easier}, and verbs that agree with the topic ({is}, {does}). Noun slots only ever stand where a
noun phrase of either number reads correctly, so a singular or plural keyword never breaks
agreement.
"""

# Words each tone uses for the frames' tone slots.
LEXICON: dict[str, dict[str, tuple[str, ...]]] = {
    "professional": {
        "should": ("should", "would do well to"),
        "consider": ("evaluate", "assess", "review"),
        "important": ("a priority", "essential", "a serious matter"),
        "easier": ("easier", "more straightforward"),
    },
    "friendly": {
        "should": ("might want to", "could"),
        "consider": ("think about", "take a look at"),
        "important": ("something worth caring about", "a real priority", "a small joy rather than a chore"),
        "easier": ("a lot easier", "much friendlier"),
    },
    "casual": {
        "should": ("should probably", "might as well"),
        "consider": ("check out", "look at", "size up"),
        "important": ("kind of a big deal", "a pretty big deal", "a proper priority"),
        "easier": ("way easier", "a whole lot simpler"),
    },
    "authoritative": {
        "should": ("must", "need to"),
        "consider": ("scrutinize", "examine", "verify"),
        "important": ("critical", "fundamental", "non-negotiable"),
        "easier": ("measurably easier", "far more reliable"),
    },
    "conversational": {
        "should": ("should", "will probably want to"),
        "consider": ("think through", "ask yourself about", "look at"),
        "important": ("a bigger deal than it looks", "something worth a second look", "important"),
        "easier": ("easier", "a lot less stressful"),
    },
    "persuasive": {
        "should": ("need to", "owe it to yourself to"),
        "consider": ("prioritize", "take a serious look at", "insist on"),
        "important": ("a top priority", "game-changing", "too important to ignore"),
        "easier": ("dramatically easier", "far more rewarding"),
    },
}

# Sentence openers: the most visible difference between tones.
OPENERS: dict[str, tuple[str, ...]] = {
    "professional": ("In practice,", "As a rule,", "Broadly speaking,", "Notably,", "For most readers,", "From a practical standpoint,", "Equally,"),
    "friendly": ("Good news:", "Here's the nice part:", "Don't worry,", "The great thing is that", "Happily,", "As a friendly tip,"),
    "casual": ("Honestly,", "Look,", "Real talk:", "So,", "Basically,", "Fair warning:", "Thing is,"),
    "authoritative": ("Make no mistake:", "Be precise here:", "The principle is simple:", "In every case,", "The fundamentals are simple:", "Precision matters here:"),
    "conversational": ("Here's the thing:", "Let's be honest:", "You know what?", "Think about it:", "Now,", "Okay, so", "As you might guess,"),
    "persuasive": ("Imagine this:", "The truth is,", "Here's why it pays off:", "Don't settle:", "Remember that", "Picture the difference:"),
}
OPENER_RATE = {"professional": 0.22, "friendly": 0.3, "casual": 0.35, "authoritative": 0.3, "conversational": 0.35, "persuasive": 0.3}

# Short sentences a tone drops in between frames, with how often (one in N sentences).
ASIDES: dict[str, tuple[tuple[str, ...], int]] = {
    "professional": (("This point deserves careful attention.", "The same principle applies to {aspect}.", "That distinction matters in practice."), 9),
    "friendly": (("You've got this.", "Take it one step at a time.", "There's no rush here.", "That's completely normal, by the way."), 6),
    "casual": (("Simple as that.", "No fuss.", "Easy, right?", "Worth it.", "Yep, really."), 5),
    "authoritative": (("This is not optional.", "Hold to this standard.", "Results depend on it.", "Anything less is guesswork."), 7),
    "conversational": (("Sounds familiar?", "Why does that matter?", "So where do you start?", "Makes sense, right?", "What does that look like for {aspect}?"), 4),
    "persuasive": (("Why wait?", "You deserve better results.", "The payoff is worth it.", "Start with {aspect} today and feel the difference."), 5),
}

# Openers ending in "that" need a statement after them, not an instruction ("... is that compare" reads wrong).
IMPERATIVES = frozenset("ask avoid begin check come compare consider do don't keep learn look pick review set start test track write".split())

CONTRACTING_TONES = frozenset({"friendly", "casual", "conversational", "persuasive"})
CONTRACTIONS = (
    ("do not", "don't"),
    ("does not", "doesn't"),
    ("is not", "isn't"),
    ("are not", "aren't"),
    ("cannot", "can't"),
    ("will not", "won't"),
    ("it is", "it's"),
    ("that is", "that's"),
    ("there is", "there's"),
    ("you are", "you're"),
    ("you will", "you'll"),
    ("it will", "it'll"),
)

PIECE = {"guide": "guide", "listicle": "list", "how_to": "walkthrough", "comparison": "comparison", "review": "review", "question": "Q&A"}
PIECE_WITH_PREPOSITION = {
    "guide": "guide to",
    "listicle": "list of tips on",
    "how_to": "step-by-step guide to",
    "comparison": "comparison of",
    "review": "review of",
    "question": "Q&A on",
}

# Sentence frames by section kind.
FRAMES: dict[str, tuple[str, ...]] = {
    "intro": (
        "Getting started with {subject} is easier with a plan than with guesswork.",
        "The sections below take {topic} one question at a time.",
        "Read it in order, or jump to the part about {aspect} if that is your question today.",
        "Choosing well when it comes to {subject} can save you time, money and frustration.",
        "You will find plenty of conflicting advice about {subject}, so this {piece} sorts the useful from the noise.",
        "This {piece} covers what matters most about {subject}, including {aspects}.",
        "Whether you are just starting out or refining an existing approach, a clear view of {subject} makes every later decision {easier}.",
        "There is more to {subject} than most quick answers suggest.",
        "By the end, you will know how to weigh {secondary} against the other options and what to do next.",
        "A little preparation goes a long way with {topic}.",
        "It pays to understand {subject} before spending time or money on it.",
    ),
    "definition": (
        "A working definition helps: {topic} is about the decisions you make and the habits that follow.",
        "Seen this way, {aspect} is one part of a larger picture.",
        "Knowing the vocabulary of {topic} makes advice much easier to judge.",
        "The basics of {topic} fit on a single page, and the rest is practice.",
        "At its core, the question of {topic} comes down to matching the right approach to a specific goal.",
        "Put simply, it all comes down to the choices, habits and tools that shape the result you get with {subject}.",
        "Most explanations of {subject} focus on the basics, but the details are where results are won or lost.",
        "It helps to separate the essentials of {topic} from the extras that only matter later.",
        "The phrase {subject} gets used loosely, so it is worth pinning down what it means in practice.",
        "For a beginner, the world of {topic} can look more complicated than it really is.",
        "Understanding the role of {aspect} makes everything else much clearer.",
    ),
    "importance": (
        "Attention to {aspect} early on keeps later problems small.",
        "A steady approach to {topic} leaves more room for the parts you enjoy.",
        "Clarity about {aspect} helps you say no to distractions.",
        "Done well, {topic} supports your wider goals instead of competing with them.",
        "Getting {subject} right pays off in ways that are easy to underestimate.",
        "A real benefit of a considered approach to {topic} is consistency over time.",
        "Small improvements in {aspect} tend to compound, which is why this area deserves your attention.",
        "Treating {subject} as {important} keeps the later choices simple.",
        "A good decision about {aspect} now saves you from costly changes later.",
        "The right approach to {topic} also makes {secondary} far easier to handle.",
        "Ignoring {aspect} is a quick way to waste effort.",
    ),
    "factors": (
        "Ask how {aspect} fits the time and money you really have.",
        "Rank {aspect} against your other needs and be honest about the order.",
        "A short checklist for {aspect} keeps comparisons fair.",
        "Think about how {aspect} will look a season from now, not only today.",
        "You {should} {consider} {aspect} before anything else.",
        "Budget matters, but it is rarely the only factor that decides your results with {topic}.",
        "Compare {aspect} across a few options before committing.",
        "Your own goals should set the priority between {aspect} and {secondary}.",
        "The details of {aspect} often separate a good choice from an average one.",
        "Look for clear, consistent information about {aspect} rather than marketing claims.",
        "It is worth writing down what matters most to you about {topic} before comparing anything.",
    ),
    "steps": (
        "Write down what done looks like for {aspect} before you begin.",
        "Break {aspect} into tasks small enough to finish in one sitting.",
        "After each task, note what surprised you about {topic}.",
        "Give {aspect} a fixed slot in your week so it actually happens.",
        "If a step about {aspect} stalls, make it smaller rather than skipping it.",
        "Begin this step by setting aside enough time to focus on {aspect}.",
        "Keep notes as you go, because they make the next stage of {topic} much smoother.",
        "Do not rush this part, since a careful start with {aspect} prevents problems later.",
        "If anything about {aspect} feels unclear, revisit the previous step before moving on.",
        "Once you have {aspect} sorted, check the result against your original goal.",
        "Small, repeatable actions on {aspect} work better than one big push.",
        "This is also a good moment to look at {secondary}, since it connects directly to this step.",
        "You {should} {consider} how this step affects {subject} as a whole.",
    ),
    "tips": (
        "Keep a simple log of what you try with {aspect}.",
        "Change one thing about {aspect} at a time so you can see its effect.",
        "Save the advice about {topic} that fits your case and let the rest go.",
        "Revisit your notes on {aspect} before each new decision.",
        "Keep your approach to {subject} simple at first and add complexity only when it earns its place.",
        "Review {aspect} regularly instead of treating it as a one-time decision.",
        "Learn from people who have already worked through {topic}, and borrow what fits your situation.",
        "Track a simple measure so you can see progress on {aspect}.",
        "Consistency beats intensity when it comes to {subject}.",
        "Set a realistic timeline for {topic} and build in room for adjustments.",
        "When in doubt, test {aspect} on a small scale before going all in.",
    ),
    "mistakes": (
        "Waiting for perfect conditions before touching {aspect} delays everything.",
        "Trusting a single opinion about {topic} leaves gaps you only notice later.",
        "Forgetting to check {aspect} after a change hides whether it helped.",
        "Spending heavily on {topic} before the basics are in place rarely pays off.",
        "A common mistake is treating {subject} as a one-size-fits-all decision.",
        "Many people skip {aspect} entirely and pay for it later.",
        "Copying someone else's approach to {topic} without adapting it rarely works.",
        "Chasing the lowest price for {topic} often costs more over time.",
        "Another trap is changing too many things at once, which makes it impossible to tell what worked.",
        "Overlooking {secondary} is an easy mistake to make and an easy one to avoid.",
    ),
    "comparison": (
        "Write down what each option asks of you in time and money before choosing.",
        "A side-by-side list of {aspect} for {option_a} and {option_b} clears up a lot.",
        "Your budget and your patience will point to one side more than the other.",
        "Both {option_a} and {option_b} solve similar problems in different ways.",
        "The right choice between {option_a} and {option_b} depends mostly on your priorities.",
        "On {aspect}, people who want simplicity often lean towards {option_a}, while hands-on people prefer {option_b}.",
        "Neither option wins on every count, so weigh {aspect} against the price.",
        "If your top priority is {aspect}, the difference between the two becomes clear quickly.",
        "Many people start with {option_a} and move to {option_b} as their needs grow.",
        "You {should} {consider} how each option handles {aspect} before deciding.",
    ),
    "review": (
        "Day-to-day use shows its character on {aspect} more than a spec sheet does.",
        "The trade-off on {aspect} is clear once you know what you need.",
        "Set your expectations on {aspect} before you judge it.",
        "Overall, the experience with {subject} is solid, with a few caveats worth knowing.",
        "When it comes to {aspect}, this is a strong point.",
        "On the downside, the approach to {aspect} may not suit everyone.",
        "The value for money depends on how much you rely on {aspect}.",
        "First impressions of {aspect} are positive, and they mostly hold up over time.",
        "Compared with the alternatives, the case for {subject} holds up well on {aspect}.",
        "It is not perfect on {aspect}, but the trade-offs are reasonable for most people.",
    ),
    "cost": (
        "List every cost of {topic} you can think of before deciding what to spend.",
        "Spending on {aspect} makes sense when it removes a real problem.",
        "A cheaper start with {topic} leaves room to upgrade once you know more.",
        "Keep receipts and notes so you can judge what {aspect} really cost you.",
        "Costs for {topic} vary widely depending on {aspect} and where you buy or book.",
        "A realistic budget for {topic} includes ongoing costs, not just the upfront price.",
        "Paying more makes sense only when it buys a real improvement in {aspect}.",
        "Free or low-cost ways into {topic} are a sensible start before spending more.",
        "Set a ceiling for spending on {subject} before you start comparing offers.",
    ),
    "question": (
        "Your own situation matters more here than any general rule about {topic}.",
        "Start from what you need from {aspect}, and the answer follows.",
        "A small test on {aspect} answers this better than more reading.",
        "The answer shifts as your needs around {aspect} change.",
        "The short answer is that it depends on your goals and how much time you can give to {topic}.",
        "In most cases, the answer comes down to {aspect}.",
        "A practical way to answer this is to start small and judge {aspect} for yourself.",
        "It is worth checking the answer again with {secondary} in mind.",
    ),
    "yes_no": (
        "That depends on how {aspect} fits your plans.",
        "Often, once {aspect} is handled with care.",
        "For most people, the honest answer is yes, as long as you give {aspect} proper care.",
        "Yes, in most cases, provided you are realistic about {aspect}.",
        "It can be, especially once you have a clear view of {aspect}.",
        "The answer is usually yes, but only if {topic} fits your goals.",
        "The answer depends on the weight you give {aspect}.",
    ),
    "general": (
        "Clear goals make every choice about {aspect} simpler.",
        "Patience with {topic} pays off in steadier progress.",
        "Write your plan for {aspect} where you will see it.",
        "Small adjustments to {aspect} add up over a season.",
        "Talk through your plans for {topic} with someone who knows your situation.",
        "Keep {aspect} in proportion to the rest of the work.",
        "There is no single right way to approach {subject}, but some ways are clearly better than others.",
        "Paying attention to {aspect} makes a noticeable difference.",
        "Good results with {topic} usually come from a clear plan and steady follow-through.",
        "It helps to revisit {aspect} once you have a little experience.",
        "A thoughtful approach to {secondary} supports everything else in this area.",
        "Good information about {topic} is easy to find once you know what to look for.",
        "Keep your long-term goals in mind whenever a decision about {aspect} comes up.",
        "Every situation is different, so adapt these ideas about {aspect} to your circumstances.",
        "You {should} {consider} {aspect} with the same care as the bigger decisions.",
        "Treating {subject} as {important} tends to pay off sooner than expected.",
    ),
    "conclusion": (
        "Pick the one change to {aspect} that matters most and start there.",
        "Come back to {topic} with fresh eyes after a few weeks of practice.",
        "Getting {subject} right does not have to be complicated once the essentials are clear.",
        "Start with {aspect}, keep things simple, and build from there.",
        "The ideas in this {piece} give you a solid base for better decisions about {topic}.",
        "Come back to these points on {topic} whenever your goals or circumstances change.",
        "With a clear plan, getting {subject} right becomes one of the easier parts of the process.",
        "The next step is simple: pick one idea from this {piece} and put it into practice.",
    ),
}

# Neutral aspects for sections that no keyword of the brief describes; all read as objects.
ASPECTS = (
    "value for money", "quality", "long-term value", "ease of use", "timing", "reliability", "flexibility",
    "the fine print", "practical fit", "upkeep", "safety", "overall value", "support options", "durability",
)

# Section plans per structure: (kind, heading template). {Kw} is the title-cased focus keyword,
# {Topic} the title-cased topic, {Secondary} a secondary keyword, {A}/{B} the compared options,
# {Is}, {Does} and {Matters} verbs that agree with the topic.
SECTION_PLANS: dict[str, tuple[tuple[str, str], ...]] = {
    "guide": (
        ("definition", "What {Is} {Topic}?"),
        ("importance", "Why {Kw} {Matters}"),
        ("factors", "Key Factors to Consider"),
        ("steps", "How to Get Started"),
        ("tips", "Best Practices for {Topic}"),
        ("mistakes", "Common Mistakes to Avoid"),
        ("cost", "Budget and Costs"),
        ("general", "{Secondary} Explained"),
        ("tips", "Advanced Tips"),
        ("general", "Tools and Resources"),
        ("general", "Measuring Your Progress"),
        ("general", "Next Steps"),
    ),
    "how_to": (
        ("steps", "Step {n}: Define Your Goal for {Topic}"),
        ("steps", "Step {n}: Gather What You Need"),
        ("steps", "Step {n}: Research {Kw}"),
        ("steps", "Step {n}: Make a Simple Plan"),
        ("steps", "Step {n}: Start Small"),
        ("steps", "Step {n}: Put It Into Practice"),
        ("steps", "Step {n}: Review Your Results"),
        ("steps", "Step {n}: Adjust and Improve"),
        ("steps", "Step {n}: Build a Routine"),
        ("steps", "Step {n}: Keep Learning"),
    ),
    "listicle": (
        ("tips", "{n}. Start With a Clear Goal"),
        ("factors", "{n}. Compare Your Options for {Kw}"),
        ("cost", "{n}. Set a Realistic Budget"),
        ("general", "{n}. Look Into {Secondary}"),
        ("factors", "{n}. Check the Details"),
        ("tips", "{n}. Learn From Experienced People"),
        ("mistakes", "{n}. Avoid the Most Common Mistakes"),
        ("tips", "{n}. Test Before You Commit"),
        ("tips", "{n}. Stay Consistent"),
        ("general", "{n}. Plan for the Long Term"),
        ("tips", "{n}. Keep It Simple"),
        ("general", "{n}. Know When to Upgrade"),
    ),
    "comparison": (
        ("comparison", "{A} at a Glance"),
        ("comparison", "{B} at a Glance"),
        ("comparison", "Key Differences Between {A} and {B}"),
        ("cost", "Cost and Value"),
        ("comparison", "How {Kw} Options Compare on Ease of Use"),
        ("factors", "What to Consider Before Choosing"),
        ("comparison", "Which Is Right for You?"),
        ("general", "{Secondary} in the Comparison"),
        ("mistakes", "Mistakes to Avoid When Comparing"),
    ),
    "review": (
        ("review", "{Kw}: An Overview"),
        ("review", "Key Features"),
        ("review", "What Works Well"),
        ("review", "What Could Be Better"),
        ("cost", "Value for Money"),
        ("review", "How It Compares With Alternatives"),
        ("factors", "Who Should Consider {Topic}"),
        ("general", "{Secondary}: What to Know"),
        ("tips", "Tips for Getting the Most Out of It"),
    ),
    "question": (
        ("definition", "What {Is} {Topic}?"),
        ("importance", "Why {Does} {Kw} Matter?"),
        ("steps", "How Do You Get Started?"),
        ("cost", "How Much Does It Cost?"),
        ("factors", "How Do You Choose the Right Option?"),
        ("mistakes", "What Mistakes Should You Avoid?"),
        ("yes_no", "{Is} {Topic} Worth It?"),
        ("question", "How Long Does It Take to See Results?"),
        ("general", "Where Does {Secondary} Fit In?"),
        ("tips", "What Do Experienced People Do Differently?"),
    ),
}

# Kinds whose section carries a short bullet list, and the bullet frames for each.
LIST_ITEMS: dict[str, tuple[str, ...]] = {
    "factors": ("The fit between {aspect} and your goals", "Real-world feedback on {aspect}", "What others say about {aspect}", "Long-term experience with {aspect}", "Whether {aspect} can change later"),
    "tips": ("Start with {aspect}", "Write down what works", "Review {aspect} every month", "Ask for a second opinion", "Keep one simple measure of progress"),
    "steps": ("A clear goal", "Time set aside for {aspect}", "Notes from earlier attempts", "A simple way to track progress", "Someone to ask when stuck"),
    "review": ("Strong on {aspect}", "Clear and consistent results", "Reasonable learning curve", "Room to grow with your needs", "Some limits on {aspect}"),
    "comparison": ("{option_a}: simpler on {aspect}", "{option_b}: more control over {aspect}", "Costs differ more than they first appear", "Both improve with regular attention"),
    "mistakes": ("Skipping {aspect}", "Changing everything at once", "Ignoring the fine print", "Giving up too early"),
    "cost": ("Upfront price", "Ongoing costs", "Hidden extras", "Long-term savings"),
}

# FAQ questions when the brief's keywords hold none; {topic} and {subject} as in the frames,
# {Is} and {does} agree with the topic ("Are running shoes ...", "Is sourdough baking ...").
FAQ_QUESTIONS = (
    "What is the most important thing to know about {topic}?",
    "How much {does} {topic} cost?",
    "How long does it take to see results with {topic}?",
    "{Is} {subject} worth it?",
    "What are the most common mistakes with {topic}?",
    "How do I get started with {topic}?",
    "Can beginners handle {topic} on their own?",
)
QUESTION_WORDS = frozenset("how what why when where which who can do does is are should will".split())
YES_NO_WORDS = frozenset("can do does is are should will".split())

CONCLUSION_HEADINGS = {
    "professional": "Conclusion",
    "friendly": "Wrapping Up",
    "casual": "The Bottom Line",
    "authoritative": "Key Takeaways",
    "conversational": "So, Where Does That Leave You?",
    "persuasive": "Ready to Get Started?",
}
REVIEW_CONCLUSION_HEADING = "The Verdict"
FAQ_HEADING = "Frequently Asked Questions"

# Words in a user's outline heading that tell which kind of section it is.
KIND_HINTS = (
    ("mistake", "mistakes"), ("avoid", "mistakes"), ("pitfall", "mistakes"),
    ("step", "steps"), ("how to", "steps"), ("getting started", "steps"), ("get started", "steps"),
    ("tip", "tips"), ("best practice", "tips"), ("hack", "tips"),
    ("what is", "definition"), ("what are", "definition"), ("definition", "definition"), ("basics", "definition"),
    ("why", "importance"), ("benefit", "importance"), ("advantage", "importance"),
    (" vs", "comparison"), ("versus", "comparison"), ("compar", "comparison"), ("differen", "comparison"), ("alternative", "comparison"),
    ("cost", "cost"), ("price", "cost"), ("budget", "cost"), ("pricing", "cost"),
    ("review", "review"), ("pros", "review"), ("cons", "review"), ("feature", "review"),
    ("factor", "factors"), ("consider", "factors"), ("choos", "factors"), ("checklist", "factors"),
)
INTRO_HEADINGS = ("introduction", "intro")
CONCLUSION_HINTS = ("conclusion", "final thought", "summary", "wrapping up", "wrap up", "bottom line", "verdict", "takeaway")
FAQ_HINTS = ("faq", "frequently asked", "common questions")
