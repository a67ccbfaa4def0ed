"""The default catalogue every installation starts with: plans, roles and industries.

Loaded by a data migration and by ``manage.py load_defaults``; loading is idempotent and
updates rows in place, so editing this file and re-running keeps installations in step.
"""

from django.utils.text import slugify

PLANS = [
    # slug, name, max_sites, max_users, max_keywords, monthly_credits, signup_credits, price (cents)
    ("free", "Free", 1, 2, 500, 100, 100, 0),
    ("starter", "Starter", 3, 5, 5_000, 1_000, 100, 2_900),
    ("growth", "Growth", 10, 15, 50_000, 5_000, 100, 9_900),
    ("scale", "Scale", 50, 50, 500_000, 25_000, 100, 39_900),
]

ROLES = [
    ("owner", "Everything, including deleting the account and changing its owner."),
    ("admin", "Everything but deleting the account and changing its owner."),
    ("editor", "Creates and changes content data on the sites granted to them; no users, keys or settings."),
    ("viewer", "Reads the sites granted to them; changes nothing."),
    ("reviewer", "Reads the sites granted to them, comments on content and approves it or sends it back; edits and publishes nothing."),
]

# Industry name -> (one-sentence description, {sector name: one-sentence description}).
INDUSTRIES = {
    "Technology": (
        "Software, security, devices and the web: products people evaluate, buy and learn to use.",
        {
            "SaaS": "Subscription business software, from CRMs and help desks to project management and accounting tools.",
            "Cybersecurity": "Protecting people and companies from breaches, malware and fraud with tools, practices and training.",
            "Consumer Electronics": "Phones, laptops, TVs, headphones and the other gadgets people compare before they buy.",
            "Web Development": "Building websites and web apps: languages, frameworks, hosting and the tools developers use.",
            "Artificial Intelligence": "Machine learning, chatbots and AI tools, and how businesses and people put them to work.",
        },
    ),
    "Health & Wellness": (
        "Fitness, diet, mental health and personal care: advice people act on for their own bodies and minds.",
        {
            "Fitness": "Workouts, training plans and gym equipment for getting stronger, fitter and more mobile.",
            "Nutrition": "What to eat and why: diets, meal plans, supplements and healthy eating habits.",
            "Mental Health": "Anxiety, stress, sleep and therapy: understanding mental health and finding support.",
            "Dental Care": "Keeping teeth and gums healthy, from everyday care to implants, braces and whitening.",
            "Skincare": "Routines, ingredients and treatments for healthy skin, from acne to anti-aging.",
        },
    ),
    "Finance": (
        "Money decisions of households and small businesses: saving, investing, insuring and borrowing.",
        {
            "Personal Finance": "Budgeting, saving, credit scores and debt: managing household money day to day.",
            "Investing": "Stocks, funds and retirement accounts, and how to grow savings over the long run.",
            "Insurance": "Life, health, home, car and pet cover: what each policy protects and what it costs.",
            "Cryptocurrency": "Bitcoin, Ethereum and other digital assets: buying, storing, trading and paying tax on them.",
            "Small Business Lending": "Loans, credit lines and other financing that small businesses use to start and grow.",
        },
    ),
    "Home & Garden": (
        "Making and keeping a home: growing, decorating, repairing and automating it.",
        {
            "Gardening": "Growing vegetables, flowers and lawns, in the ground, in raised beds and in containers.",
            "Interior Design": "Decorating and furnishing rooms: styles, colours, layouts and the pieces that make them work.",
            "Home Improvement": "Repairs, renovations and DIY projects, and what they cost when a pro does them.",
            "Smart Home": "Connected thermostats, cameras, locks, lights and speakers, and how to set them up together.",
        },
    ),
    "Travel & Hospitality": (
        "Planning and booking trips, from where to stay to how to get there for less.",
        {
            "Adventure Travel": "Hiking, diving, safaris and other active trips, with the planning and gear they need.",
            "Hotels": "Choosing and booking places to stay, from boutique hotels to all-inclusive resorts.",
            "Budget Travel": "Seeing more for less: cheap flights, hostels, rail passes and money-saving travel tips.",
            "Cruises": "Ocean and river cruises: lines, ships, itineraries, cabins and what to pack.",
        },
    ),
    "Food & Beverage": (
        "Cooking at home, what to drink, and where to eat out.",
        {
            "Recipes": "Home cooking ideas, from quick weeknight dinners to baking and meal prep.",
            "Coffee": "Beans, brewing methods and machines for making better coffee at home.",
            "Wine": "Grapes, regions, pairings and buying wine, for beginners and collectors alike.",
            "Restaurants": "Finding, reviewing and running places to eat, from local favourites to fine dining.",
        },
    ),
    "Retail & E-commerce": (
        "Shopping for things people wear, give, feed their pets and take outdoors.",
        {
            "Fashion": "Clothing, shoes and style advice, from everyday basics to seasonal trends.",
            "Jewelry": "Rings, necklaces, watches and the metals and stones they are made of.",
            "Pet Supplies": "Food, toys, beds and care products for dogs, cats and other pets.",
            "Outdoor Gear": "Tents, backpacks, boots and clothing for camping, hiking and time outside.",
        },
    ),
    "Education": (
        "Learning at every age, online and off: courses, languages, exams and the early years.",
        {
            "Online Courses": "Courses, certificates and bootcamps that people take online to learn a skill or change careers.",
            "Language Learning": "Apps, classes and methods for learning Spanish, French, Japanese and other languages.",
            "Test Preparation": "Studying for the SAT, GRE, GMAT, LSAT and other exams that gate the next step.",
            "Early Childhood": "Preschool, play and early learning activities for babies, toddlers and young children.",
        },
    ),
    "Automotive": (
        "Choosing, buying, running and looking after a car, electric or not.",
        {
            "Electric Vehicles": "Electric and plug-in hybrid cars: models, range, charging and incentives.",
            "Car Maintenance": "Servicing and repairing cars, from oil changes and tyres to brakes and batteries.",
            "Car Buying": "Choosing, financing and buying a new or used car, and selling or trading in the old one.",
        },
    ),
    "Real Estate": (
        "Buying, selling, renting and managing homes and commercial property.",
        {
            "Residential Real Estate": "Buying and selling homes: mortgages, agents, listings and the steps to closing.",
            "Commercial Real Estate": "Offices, retail, industrial and multifamily property as places to lease and assets to invest in.",
            "Property Management": "Running rental properties: tenants, leases, rent collection and maintenance.",
        },
    ),
    "Legal Services": (
        "Finding and working with a lawyer for injuries, families and immigration.",
        {
            "Personal Injury Law": "Claims after accidents and injuries, and how injury lawyers and settlements work.",
            "Family Law": "Divorce, custody, child support and adoption, and the lawyers who handle them.",
            "Immigration Law": "Visas, green cards, citizenship and asylum, and the process of each.",
        },
    ),
    "Marketing": (
        "Getting found and staying in touch: search, social, e-mail and content.",
        {
            "Search Engine Optimization": "Ranking in search results: keyword research, technical SEO, content and links.",
            "Social Media Marketing": "Growing an audience and selling on Instagram, TikTok, LinkedIn and other networks.",
            "Email Marketing": "Newsletters, automations and campaigns, and the platforms that send them.",
            "Content Marketing": "Blogs, videos and other content that attract and convert customers over time.",
        },
    ),
}


def load_defaults(Plan, Role, Industry, IndustrySector) -> None:
    """Creates or updates the catalogue; takes the model classes so migrations can pass theirs."""
    for order, (slug, name, sites, users, keywords, monthly, signup, price) in enumerate(PLANS):
        Plan.objects.update_or_create(
            slug=slug,
            defaults={
                "name": name,
                "max_sites": sites,
                "max_users": users,
                "max_keywords": keywords,
                "monthly_credits": monthly,
                "signup_credits": signup,
                "price_cents_monthly": price,
                "sort_order": order,
            },
        )
    for name, description in ROLES:
        Role.objects.update_or_create(name=name, defaults={"description": description})
    for industry_name, (industry_description, sectors) in INDUSTRIES.items():
        industry, _ = Industry.objects.update_or_create(
            slug=slugify(industry_name), defaults={"name": industry_name, "description": industry_description}
        )
        for sector_name, sector_description in sectors.items():
            IndustrySector.objects.update_or_create(
                industry=industry, slug=slugify(sector_name), defaults={"name": sector_name, "description": sector_description}
            )
