"""Generates ``demo_keywords.csv``, the demo keywords library shipped with Inkwell.

Deterministic: the same code always writes the same bytes (a fixed random seed, fixed orders).
Regenerate after editing the topics below, then commit both files:

    .venv/bin/python inkwell/keywords/data/make_demo.py            # rewrites demo_keywords.csv
    .venv/bin/python inkwell/keywords/data/make_demo.py --check    # fails when the CSV is stale

How a keyword is composed, per industry sector (``SECTORS``):

- groups of hand-written topics (noun phrases), each with the modifiers that fit them: "best …",
  "… cost", "… near me", "… for beginners", "… reviews", "cheap …", "… 2026" and so on
  (``MODIFIERS``). Each topic is a head term and takes three to five of its group's modifiers,
  picked at random; modifiers never repeat a word of the topic ("cheap cheap flights").
- a few "… vs …" comparisons between topics of a group marked ``vs``.
- ``tasks``: verb phrases for "how to …" (and sometimes "best way to …").

Volumes follow a long tail: a topic's head term gets 1k-200k searches a month (bigger for the
first topics of a sector), and each modified keyword a share of it with log-normal noise, down to
10; every volume is rounded to the buckets keyword tools report. Difficulty grows with the log of
the volume, plus the sector's competitiveness and the modifier's intent. Most rows are US; bigger
keywords are also listed for GB, CA, AU and DE with smaller volumes. About 10% are paid (credit cost
1-5, higher for bigger keywords) and about 8% are high-opportunity (high volume, low-to-medium
difficulty).
"""

import csv
import io
import math
import random
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``inkwell`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from inkwell.tenancy.defaults import INDUSTRIES  # noqa: E402

SEED = 2026
OUTPUT = Path(__file__).resolve().parent / "demo_keywords.csv"
COLUMNS = ["keyword", "volume", "difficulty", "country", "industry", "sector", "is_high_opportunity", "is_paid", "credit_cost"]

# key: (pattern, share of the head term's volume, difficulty offset). Buying modifiers are harder.
MODIFIERS = {
    # buying
    "best": ("best {t}", 0.14, 6),
    "cheap": ("cheap {t}", 0.06, 2),
    "cost": ("{t} cost", 0.07, 4),
    "price": ("{t} price", 0.12, 3),
    "pricing": ("{t} pricing", 0.04, 3),
    "reviews": ("{t} reviews", 0.05, 3),
    "deals": ("{t} deals", 0.05, 4),
    "sale": ("{t} for sale", 0.08, 2),
    "smb": ("{t} for small business", 0.04, 5),
    "landlords": ("{t} for landlords", 0.05, 2),
    "free": ("free {t}", 0.08, 1),
    "alternatives": ("{t} alternatives", 0.02, -2),
    "online": ("{t} online", 0.06, 1),
    "women": ("{t} for women", 0.12, 3),
    "men": ("{t} for men", 0.09, 3),
    "summer": ("summer {t}", 0.06, 0),
    "lightweight": ("lightweight {t}", 0.04, -2),
    "accredited": ("accredited {t}", 0.1, 4),
    "consultation": ("{t} free consultation", 0.03, 2),
    "fees": ("{t} fees", 0.05, 0),
    "installation": ("{t} installation", 0.04, 1),
    "rates": ("{t} rates", 0.09, 6),
    "quotes": ("{t} quotes", 0.08, 8),
    "badcredit": ("{t} for bad credit", 0.04, 4),
    "tours": ("{t} tours", 0.07, 3),
    "prep": ("{t} prep", 0.25, 4),
    "tutor": ("{t} tutor", 0.03, 0),
    "families": ("{t} for families", 0.03, -2),
    "toddlers": ("{t} for toddlers", 0.06, -2),
    "software": ("{t} software", 0.05, 4),
    "app": ("{t} app", 0.03, 0),
    "devices": ("{t} devices", 0.1, 2),
    "kit": ("{t} kit", 0.04, -2),
    "coupons": ("{t} coupons", 0.04, -4),
    "warranty": ("{t} warranty", 0.05, 0),
    "byowner": ("{t} by owner", 0.08, -3),
    "daypass": ("{t} day pass", 0.04, -6),
    "espresso": ("{t} for espresso", 0.04, -2),
    "certification": ("{t} certification", 0.08, 0),
    # informational
    "diy": ("diy {t}", 0.05, -6),
    "guide": ("{t} guide", 0.02, -4),
    "beginners": ("{t} for beginners", 0.03, -8),
    "tips": ("{t} tips", 0.03, -6),
    "what": ("what is {t}", 0.05, -5),
    "year": ("{t} 2026", 0.02, -7),
    "ideas": ("{t} ideas", 0.08, -6),
    "examples": ("{t} examples", 0.03, -6),
    "tools": ("{t} tools", 0.06, 2),
    "templates": ("{t} template", 0.05, -3),
    "printable": ("{t} printable", 0.04, -8),
    "checklist": ("{t} checklist", 0.03, -6),
    "trends": ("{t} trends", 0.03, -5),
    "recipe": ("{t} recipe", 0.45, 0),
    "recipes": ("{t} recipes", 0.4, 0),
    "easy": ("easy {t}", 0.10, -3),
    "healthy": ("healthy {t}", 0.05, -2),
    "calories": ("{t} calories", 0.04, -6),
    "ratio": ("{t} ratio", 0.04, -8),
    "pairing": ("{t} food pairing", 0.03, -6),
    "tutorial": ("{t} tutorial", 0.06, -3),
    "course": ("{t} course", 0.04, 2),
    "requirements": ("{t} requirements", 0.05, -3),
    "eligibility": ("{t} eligibility", 0.05, -5),
    "processing": ("{t} processing time", 0.06, -6),
    "application": ("{t} application", 0.08, -2),
    "renewal": ("{t} renewal", 0.06, -3),
    "questions": ("{t} questions", 0.3, -2),
    "itinerary": ("{t} itinerary", 0.05, -5),
    "countries": ("{t} countries", 0.1, -4),
    "practice": ("{t} practice test", 0.2, 0),
    "scores": ("{t} scores", 0.07, -4),
    "dates": ("{t} test dates", 0.08, -6),
    "studyguide": ("{t} study guide", 0.03, -4),
    "passrate": ("{t} pass rate", 0.04, -6),
    "athome": ("{t} at home", 0.05, -4),
    "worth": ("is {t} worth it", 0.02, -8),
    "benefits": ("{t} benefits", 0.06, -3),
    "sideeffects": ("{t} side effects", 0.06, -3),
    "symptoms": ("{t} symptoms", 0.12, 2),
    "treatment": ("{t} treatment", 0.06, 4),
    "causes": ("{t} causes", 0.04, -2),
    "test": ("{t} test", 0.06, -2),
    "steps": ("{t} steps", 0.05, -6),
    "calculator": ("{t} calculator", 0.06, 2),
    "limits": ("{t} limits", 0.08, -3),
    "news": ("{t} news", 0.05, -2),
    "strategies": ("{t} strategies", 0.04, -4),
    "strategy": ("{t} strategy", 0.06, -2),
    "prediction": ("{t} price prediction", 0.05, -4),
    "chart": ("{t} chart", 0.06, -8),
    "layout": ("{t} layout", 0.05, -7),
    "care": ("{t} care", 0.15, -4),
    "whenplant": ("when to plant {t}", 0.06, -8),
    "meanings": ("{t} meanings", 0.05, -8),
    "rules": ("{t} rules", 0.05, -4),
    "exercises": ("{t} exercises", 0.04, -6),
    "checker": ("{t} checker", 0.08, 2),
    "travel": ("{t} for travel", 0.06, -6),
    "age": ("{t} age", 0.05, -6),
    "assistance": ("{t} assistance", 0.05, -3),
    "worksheets": ("{t} worksheets", 0.06, -6),
    "games": ("{t} games", 0.05, -5),
    "intoddlers": ("{t} in toddlers", 0.2, -2),
    "indoor": ("indoor {t}", 0.08, -5),
    "comparison": ("{t} comparison", 0.05, -4),
    "meaning": ("{t} meaning", 0.08, -6),
    "codes": ("{t} codes", 0.05, -4),
    "commission": ("{t} commission", 0.05, -3),
    "today": ("{t} today", 0.2, 2),
    "forecast": ("{t} forecast", 0.04, -2),
    "programs": ("{t} programs", 0.06, -2),
    "formula": ("{t} formula", 0.04, -6),
    "regulations": ("{t} regulations", 0.05, -5),
    "bystate": ("{t} by state", 0.1, -4),
    "list": ("{t} list", 0.05, -6),
    "average": ("average {t}", 0.06, -3),
    "timeline": ("{t} timeline", 0.04, -6),
    "amounts": ("{t} amounts", 0.04, -6),
    "process": ("{t} process", 0.06, -4),
    "forms": ("{t} forms", 0.06, -4),
    "guidelines": ("{t} guidelines", 0.04, -5),
    "salary": ("{t} salary", 0.1, -4),
    "jobdesc": ("{t} job description", 0.05, -8),
    # local
    "near": ("{t} near me", 0.22, -3),
    "opennow": ("{t} open now", 0.05, -8),
    "weekend": ("{t} this weekend", 0.08, -8),
}

# Per industry sector: competitiveness (difficulty offset); groups of topics with the modifiers
# that fit them ("vs" lets the group's topics be compared); tasks for "how to …"; "us" marks
# sectors whose keywords are mostly searched in the US. Topics come in rough order of popularity
# and a trailing "*" marks one of the big head terms.
SECTORS = {
    ("Technology", "SaaS"): {
        "competition": 14,
        "groups": [
            ("best pricing reviews free smb alternatives vs",
             "crm software*, project management software*, accounting software, help desk software, payroll software, hr software, "
             "erp software, inventory management software, time tracking software, video conferencing software, "
             "document management software, scheduling software, invoicing software"),
            ("what examples tools guide", "customer success, product led growth, saas metrics"),
        ],
        "tasks": ["choose a crm", "reduce customer churn", "calculate monthly recurring revenue", "migrate data to a new crm", "run payroll for a small business"],
    },
    ("Technology", "Cybersecurity"): {
        "competition": 12,
        "groups": [
            ("best free reviews smb year vs", "vpn*, antivirus software*, password manager, firewall, identity theft protection, endpoint security"),
            ("what examples guide tips", "two factor authentication, phishing, ransomware, zero trust security, social engineering"),
            ("cost smb best what", "penetration testing, security awareness training, managed security services"),
        ],
        "tasks": ["remove malware from a laptop", "spot a phishing email", "secure a home wifi network", "set up two factor authentication", "create a strong password"],
    },
    ("Technology", "Consumer Electronics"): {
        "competition": 8,
        "groups": [
            ("best cheap reviews deals sale year vs",
             "laptop*, wireless earbuds*, gaming laptop, 4k tv, smartwatch, noise cancelling headphones, tablet, bluetooth speaker, "
             "gaming monitor, robot vacuum, mechanical keyboard, portable charger, e reader"),
            ("best cheap beginners reviews sale", "drone"),
        ],
        "tasks": ["screenshot on a laptop", "reset airpods", "connect bluetooth headphones", "factory reset an iphone", "clean a laptop screen"],
    },
    ("Technology", "Web Development"): {
        "competition": 6,
        "groups": [
            ("best cheap free reviews year vs", "web hosting*, website builder*, wordpress hosting"),
            ("best cheap free", "domain name"),
            ("tutorial beginners what examples course vs", "react, javascript, typescript, css grid, responsive design, rest api"),
            ("what checklist guide tools", "web accessibility"),
            ("best free what examples vs", "headless cms, static site generator, python web framework"),
        ],
        "tasks": ["build a website", "make a website responsive", "host a website", "deploy a react app", "center a div", "learn javascript"],
    },
    ("Technology", "Artificial Intelligence"): {
        "competition": 10,
        "groups": [
            ("best free alternatives reviews year",
             "ai chatbot*, ai image generator*, ai writing tool, ai video generator, ai code assistant, ai detector, ai voice generator"),
            ("what beginners examples course tools vs",
             "machine learning, generative ai, large language models, prompt engineering, computer vision, natural language processing"),
        ],
        "tasks": ["use chatgpt for work", "write better prompts", "train a machine learning model", "build an ai chatbot", "detect ai generated text"],
    },
    ("Health & Wellness", "Fitness"): {
        "competition": 4,
        "groups": [
            ("cost cheap best near", "gym membership*"),
            ("near cost best women", "personal trainer"),
            ("near beginners online cost", "yoga classes, pilates classes"),
            ("best cheap reviews women sale year vs", "running shoes*, treadmill, adjustable dumbbells, resistance bands"),
            ("beginners women athome guide tips", "workout plan, strength training, hiit workout, stretching routine, kettlebell workout"),
            ("ideas best cheap", "home gym"),
        ],
        "tasks": ["lose belly fat", "build muscle at home", "start running", "do a proper squat", "improve flexibility"],
    },
    ("Health & Wellness", "Nutrition"): {
        "competition": 3,
        "groups": [
            ("beginners what guide tips benefits vs", "intermittent fasting*, keto diet*, mediterranean diet, calorie deficit"),
            ("best reviews women benefits sideeffects vs", "protein powder, creatine, multivitamin, magnesium supplement"),
            ("ideas easy beginners", "meal plan, high protein breakfast, low carb snacks"),
            ("best cost reviews cheap", "meal delivery service"),
            ("near cost online", "dietitian"),
        ],
        "tasks": ["count macros", "lose weight without exercise", "start a keto diet", "eat more protein", "read nutrition labels"],
    },
    ("Health & Wellness", "Mental Health"): {
        "competition": 5,
        "groups": [
            ("near cost online", "therapist*, psychiatrist, couples therapy"),
            ("symptoms treatment tips what test", "anxiety*, depression, adhd in adults, burnout, insomnia, panic attack"),
            ("best cost reviews free vs", "online therapy, meditation app"),
            ("beginners guide what benefits examples", "meditation, cognitive behavioral therapy, mindfulness exercises"),
        ],
        "tasks": ["calm down from a panic attack", "find a therapist", "stop overthinking", "fall asleep fast", "deal with burnout"],
    },
    ("Health & Wellness", "Dental Care"): {
        "competition": 6,
        "groups": [
            ("near opennow best reviews cheap", "dentist*"),
            ("near opennow cost cheap", "emergency dentist"),
            ("cost near cheap reviews vs",
             "dental implants*, teeth whitening, invisalign, root canal, veneers, dental crown, wisdom teeth removal, dentures"),
            ("best reviews cheap vs", "electric toothbrush, water flosser"),
            ("symptoms treatment what", "gum disease, cavity, tooth sensitivity"),
        ],
        "tasks": ["whiten teeth at home", "stop tooth pain", "floss properly", "get rid of bad breath"],
    },
    ("Health & Wellness", "Skincare"): {
        "competition": 7,
        "groups": [
            ("best cheap reviews men year vs",
             "moisturizer*, sunscreen*, retinol serum, vitamin c serum, niacinamide serum, face wash, eye cream, "
             "hyaluronic acid serum, anti aging cream"),
            ("treatment causes tips", "acne, dark spots, rosacea, eczema, hyperpigmentation"),
            ("beginners men steps", "skincare routine"),
            ("cost near what vs", "chemical peel, botox, microneedling"),
        ],
        "tasks": ["get rid of acne scars", "build a skincare routine", "remove dark spots", "use retinol", "shrink pores"],
    },
    ("Finance", "Personal Finance"): {
        "competition": 16,
        "groups": [
            ("best reviews year vs", "credit card*, cash back credit card, balance transfer credit card, budget app"),
            ("best rates calculator badcredit", "personal loan*, debt consolidation loan"),
            ("best rates calculator vs", "high yield savings account"),
            ("what tips", "credit score"),
            ("beginners tips", "budgeting"),
            ("what calculator examples", "emergency fund, 50/30/20 rule, debt snowball"),
            ("free what", "credit report"),
        ],
        "tasks": ["build credit fast", "pay off credit card debt", "save money fast", "make a budget", "improve your credit score"],
    },
    ("Finance", "Investing"): {
        "competition": 16,
        "groups": [
            ("beginners news guide", "stock market*"),
            ("calculator what limits vs", "roth ira*, 401k"),
            ("what beginners guide best vs", "index funds, etf, dividend stocks, bonds, target date funds"),
            ("best reviews what vs", "brokerage account, robo advisor"),
            ("calculator what examples", "compound interest"),
            ("what beginners examples strategies", "value investing, options trading"),
        ],
        "tasks": ["invest in stocks", "start investing with little money", "open a roth ira", "buy index funds", "rebalance a portfolio"],
        "us": True,
    },
    ("Finance", "Insurance"): {
        "competition": 20,
        "groups": [
            ("best cheap cost quotes vs",
             "car insurance*, health insurance*, homeowners insurance, renters insurance, pet insurance, travel insurance, dental insurance"),
            ("what cost quotes best vs", "term life insurance, whole life insurance, umbrella insurance, disability insurance"),
            ("cost best quotes", "business insurance"),
            ("near best", "insurance agent"),
        ],
        "tasks": ["lower car insurance premiums", "file an insurance claim", "compare insurance quotes", "choose a health plan"],
    },
    ("Finance", "Cryptocurrency"): {
        "competition": 12,
        "groups": [
            ("price news what prediction vs", "bitcoin*, ethereum*, solana"),
            ("best reviews fees beginners vs", "crypto exchange, crypto wallet, hardware wallet"),
            ("what beginners guide examples", "blockchain, staking, defi, nft, stablecoin"),
            ("calculator guide software", "crypto tax"),
            ("what news best", "bitcoin etf"),
        ],
        "tasks": ["buy bitcoin", "stake ethereum", "report crypto on taxes", "set up a crypto wallet", "transfer crypto to a wallet"],
    },
    ("Finance", "Small Business Lending"): {
        "competition": 18,
        "groups": [
            ("best rates requirements badcredit calculator vs",
             "small business loan*, sba loan, business line of credit, equipment financing, startup business loan, working capital loan, "
             "microloan, sba 7a loan"),
            ("best badcredit reviews vs", "business credit card"),
            ("what rates reviews vs", "merchant cash advance, invoice factoring"),
            ("what free tips", "business credit score"),
        ],
        "tasks": ["get a small business loan", "qualify for an sba loan", "build business credit", "write a business plan for a loan"],
        "us": True,
    },
    ("Home & Garden", "Gardening"): {
        "competition": -4,
        "groups": [
            ("near cost ideas", "landscaping*"),
            ("near cost tips", "lawn care"),
            ("beginners ideas tips layout", "vegetable garden*, container gardening"),
            ("care tips whenplant beginners", "tomatoes, hydrangeas, roses, lavender, succulents"),
            ("best cheap ideas diy", "raised garden bed"),
            ("best cheap reviews", "compost bin, grow lights, potting soil, garden hose"),
            ("chart guide beginners", "companion planting"),
        ],
        "tasks": ["grow tomatoes", "start a compost pile", "prune hydrangeas", "get rid of aphids", "plant grass seed"],
    },
    ("Home & Garden", "Interior Design"): {
        "competition": 2,
        "groups": [
            ("ideas trends year tips",
             "living room decor*, kitchen design, small bedroom, paint colors, boho decor, home office setup, scandinavian interior design"),
            ("best cheap ideas sale", "accent chair, area rug, sectional sofa, wall art, mid century modern furniture"),
            ("near cost best", "interior designer"),
        ],
        "tasks": ["arrange furniture in a small living room", "choose paint colors", "hang curtains", "style a bookshelf", "mix patterns"],
    },
    ("Home & Garden", "Home Improvement"): {
        "competition": 8,
        "groups": [
            ("cost near ideas cheap", "kitchen remodel*, bathroom remodel*, basement finishing"),
            ("cost near best cheap",
             "roof replacement, window replacement, hvac replacement, fence installation, water heater installation, "
             "hardwood floor refinishing, siding replacement, deck installation"),
            ("diy cost ideas", "tile backsplash, accent wall"),
            ("diy cost near", "drywall repair"),
            ("best cheap reviews sale vs", "cordless drill, pressure washer, shop vac"),
        ],
        "tasks": ["fix a leaky faucet", "patch drywall", "install a ceiling fan", "paint kitchen cabinets", "unclog a drain"],
    },
    ("Home & Garden", "Smart Home"): {
        "competition": 6,
        "groups": [
            ("best cheap reviews installation vs year", "security camera*, video doorbell, smart thermostat, smart lock"),
            ("best cheap reviews deals vs year",
             "smart plug, smart speaker, mesh wifi, smart lights, robot lawn mower, smart smoke detector, smart home hub, smart blinds"),
            ("ideas beginners devices", "smart home"),
        ],
        "tasks": ["set up a smart home", "connect alexa to wifi", "install a video doorbell", "automate your lights", "reset a smart plug"],
    },
    ("Travel & Hospitality", "Adventure Travel"): {
        "competition": 2,
        "groups": [
            ("near best app beginners", "hiking trails*"),
            ("near cost certification beginners", "scuba diving"),
            ("near cost beginners", "skydiving, white water rafting, zip lining"),
            ("cost tours guide tips itinerary", "safari, kilimanjaro climb, trekking in nepal, patagonia trek, camino de santiago"),
            ("itinerary tips cost guide", "iceland road trip, backpacking europe"),
            ("beginners guide tours", "via ferrata"),
        ],
        "tasks": ["plan a safari", "train for a multi day hike", "pack for a trekking trip", "get scuba certified"],
    },
    ("Travel & Hospitality", "Hotels"): {
        "competition": 10,
        "groups": [
            ("near cheap best deals", "hotels*, pet friendly hotels, extended stay hotels, airport hotels, motels"),
            ("best cheap deals families",
             "hotels in las vegas*, hotels in new york, all inclusive resorts, hotels in paris, hotels in london, hotels in tokyo, beach resorts"),
            ("best deals near", "luxury hotels, boutique hotels"),
            ("best vs", "hotel loyalty programs, hotel credit card"),
        ],
        "tasks": ["get a hotel upgrade", "find cheap hotel deals", "book a hotel with points", "cancel a hotel reservation"],
    },
    ("Travel & Hospitality", "Budget Travel"): {
        "competition": 5,
        "groups": [
            ("tips app best year", "cheap flights*, flight deals"),
            ("cheap deals best", "last minute flights"),
            ("best reviews vs year", "travel credit card, carry on luggage, travel backpack"),
            ("best near cheap tips", "hostels"),
            ("cost worth guide", "eurail pass"),
            ("ideas year", "budget destinations"),
            ("tips beginners guide", "travel hacking"),
            ("templates printable", "packing list"),
            ("itinerary cost guide", "southeast asia backpacking"),
            ("countries requirements", "digital nomad visa"),
        ],
        "tasks": ["find cheap flights", "travel europe on a budget", "pack a carry on", "use credit card points for flights", "travel for free"],
    },
    ("Travel & Hospitality", "Cruises"): {
        "competition": 8,
        "groups": [
            ("best cheap deals cost year vs",
             "caribbean cruise*, alaska cruise*, mediterranean cruise, river cruise, galapagos cruise, all inclusive cruise"),
            ("deals reviews tips vs", "royal caribbean, carnival cruise, disney cruise, norwegian cruise line"),
            ("best cost", "shore excursions"),
            ("printable", "cruise packing list"),
            ("cost cheap near", "cruise port parking"),
        ],
        "tasks": ["find cruise deals", "avoid seasickness on a cruise", "choose a cruise cabin", "book a cruise excursion"],
    },
    ("Food & Beverage", "Recipes"): {
        "competition": -6,
        "groups": [
            ("recipe easy healthy best",
             "banana bread*, lasagna, chili, chocolate chip cookies*, pancakes, shrimp pasta, slow cooker pot roast, overnight oats"),
            ("recipes easy healthy", "chicken thighs*, ground beef, salmon, air fryer chicken"),
            ("ideas beginners recipes healthy", "meal prep"),
            ("recipes ideas easy", "vegan dinner"),
            ("recipe beginners easy", "sourdough bread, homemade pizza dough"),
        ],
        "tasks": ["make sourdough starter", "cook rice", "boil eggs", "make pizza dough", "meal prep for the week"],
    },
    ("Food & Beverage", "Coffee"): {
        "competition": 3,
        "groups": [
            ("near opennow best", "coffee shop*"),
            ("best cheap reviews deals vs year", "espresso machine*, coffee grinder, nespresso machine, drip coffee maker, milk frother"),
            ("best ratio vs", "french press, moka pot"),
            ("best espresso", "coffee beans"),
            ("best reviews cheap", "coffee subscription, decaf coffee"),
            ("ratio recipe vs", "cold brew, pour over coffee"),
            ("recipe calories", "latte"),
        ],
        "tasks": ["make cold brew", "make a latte at home", "descale a coffee maker", "grind coffee beans", "use a french press"],
    },
    ("Food & Beverage", "Wine"): {
        "competition": 0,
        "groups": [
            ("best cheap what pairing vs", "champagne*, prosecco, pinot noir, cabernet sauvignon, sauvignon blanc, rose wine, malbec"),
            ("best reviews cheap vs", "wine club, wine fridge, wine glasses"),
            ("near tours cost", "wine tasting"),
            ("best tours", "napa valley wineries"),
            ("what best", "natural wine"),
        ],
        "tasks": ["store wine", "taste wine", "choose a wine for dinner", "open a wine bottle without a corkscrew"],
    },
    ("Food & Beverage", "Restaurants"): {
        "competition": 4,
        "groups": [
            ("near best cheap opennow reviews",
             "restaurants*, mexican restaurant*, italian restaurant, sushi restaurant, thai food, steakhouse, brunch, seafood restaurant, "
             "vegan restaurant, food trucks"),
            ("best pricing reviews smb free vs", "restaurant pos system, restaurant reservation system, restaurant inventory software"),
            ("ideas templates examples", "restaurant menu design"),
        ],
        "tasks": ["start a restaurant", "write a restaurant business plan", "get a liquor license", "price a restaurant menu"],
    },
    ("Retail & E-commerce", "Fashion"): {
        "competition": 6,
        "groups": [
            ("women men cheap best sale",
             "white sneakers*, leather jacket, linen pants, trench coat, cashmere sweater, ankle boots, work bag"),
            ("best cheap sale", "high waisted jeans"),
            ("ideas cheap summer best", "wedding guest dress*"),
            ("women men year", "business casual, fall outfits"),
            ("women men checklist examples", "capsule wardrobe"),
            ("women men", "old money style"),
            ("near cost", "tailor, alterations"),
        ],
        "tasks": ["dress business casual", "build a capsule wardrobe", "style white sneakers", "find your clothing size online"],
    },
    ("Retail & E-commerce", "Jewelry"): {
        "competition": 8,
        "groups": [
            ("cost ideas best cheap vs", "engagement ring*, wedding band"),
            ("women men cheap best", "gold necklace, tennis bracelet, gold chain"),
            ("best cheap sale", "pearl earrings, hoop earrings, charm bracelet, promise ring, mens watch"),
            ("vs cost what near", "lab grown diamonds, moissanite"),
            ("chart meanings", "birthstone"),
            ("near best reviews", "jeweler"),
            ("near cost", "jewelry repair"),
        ],
        "tasks": ["clean silver jewelry", "measure ring size", "tell if gold is real", "choose an engagement ring"],
    },
    ("Retail & E-commerce", "Pet Supplies"): {
        "competition": 5,
        "groups": [
            ("best cheap reviews deals online vs", "dog food*, cat food*, puppy food, grain free dog food"),
            ("best cheap reviews deals online",
             "cat litter, dog bed, dog harness, dog toys, cat tree, dog crate, automatic cat feeder, fish tank, flea treatment for dogs"),
            ("best cost recipe", "raw dog food"),
        ],
        "tasks": ["crate train a puppy", "switch dog food", "stop a cat from scratching furniture", "clean a fish tank"],
    },
    ("Retail & E-commerce", "Outdoor Gear"): {
        "competition": 5,
        "groups": [
            ("best cheap reviews lightweight women sale year",
             "hiking boots*, sleeping bag, backpacking tent, rain jacket, hiking backpack, down jacket, camping chair, trekking poles, "
             "camping stove, headlamp, water filter, sleeping pad, camping cooler"),
            ("checklist beginners best cheap", "camping gear"),
        ],
        "tasks": ["pitch a tent", "waterproof hiking boots", "pack a backpack for hiking", "choose a sleeping bag"],
    },
    ("Education", "Online Courses"): {
        "competition": 10,
        "groups": [
            ("best cost reviews worth online free vs",
             "coding bootcamp*, data science bootcamp, python course, digital marketing course, ux design course, excel course, "
             "project management certification, cybersecurity certificate"),
            ("best cost worth", "online mba"),
            ("best cheap accredited", "online degree programs, online colleges"),
            ("worth free reviews cost", "google career certificates"),
        ],
        "tasks": ["learn python", "become a data analyst", "get a project management certification", "learn excel fast", "switch careers into tech"],
    },
    ("Education", "Language Learning"): {
        "competition": 2,
        "groups": [
            ("online best free beginners cost near cheap",
             "spanish lessons*, french lessons, japanese lessons, german lessons, esl lessons, sign language classes, mandarin classes"),
            ("online cost near cheap", "spanish tutor, english tutor"),
            ("best free reviews vs", "language learning app*"),
            ("alternatives reviews vs cost", "duolingo, rosetta stone, babbel"),
            ("rules checker exercises beginners", "english grammar"),
            ("chart beginners examples", "spanish verbs, korean alphabet"),
            ("beginners travel", "italian phrases"),
        ],
        "tasks": ["learn spanish fast", "learn a language at home", "practice speaking english", "learn japanese hiragana", "become fluent in french"],
    },
    ("Education", "Test Preparation"): {
        "competition": 8,
        "groups": [
            ("prep practice scores tutor dates studyguide vs", "sat*, act*, gre, gmat, lsat, mcat, ielts, toefl"),
            ("prep practice studyguide passrate", "nclex, ged, bar exam, cpa exam"),
        ],
        "tasks": ["study for the sat", "improve your lsat score", "pass the nclex", "prepare for ielts speaking"],
        "us": True,
    },
    ("Education", "Early Childhood"): {
        "competition": 2,
        "groups": [
            ("near cost best age", "daycare*, preschool*, pre k"),
            ("near cost what athome", "montessori"),
            ("near cost assistance", "child care"),
            ("best toddlers year", "educational toys"),
            ("best cheap reviews", "kids learning tablet"),
            ("ideas athome easy indoor", "toddler activities, sensory play"),
            ("tips chart age", "potty training"),
            ("worksheets games", "phonics"),
            ("checklist tips", "kindergarten readiness"),
            ("intoddlers tips", "speech delay"),
        ],
        "tasks": ["potty train a toddler", "teach a child to read", "prepare for kindergarten", "choose a daycare"],
    },
    ("Automotive", "Electric Vehicles"): {
        "competition": 8,
        "groups": [
            ("price reviews sale vs year", "tesla model y*, tesla model 3*, rivian r1s, chevy bolt"),
            ("best cheap sale year vs", "electric suv, hybrid cars, electric truck, used electric cars"),
            ("best cost installation reviews", "home ev charger"),
            ("near cost free", "ev charging stations"),
            ("cost near best", "ev charger installation"),
            ("requirements eligibility year calculator", "ev tax credit"),
            ("best what year", "plug in hybrid"),
            ("comparison calculator", "electric car range"),
        ],
        "tasks": ["charge an electric car at home", "find ev charging stations", "claim the ev tax credit", "extend ev battery life"],
    },
    ("Automotive", "Car Maintenance"): {
        "competition": 4,
        "groups": [
            ("cost near cheap opennow coupons", "oil change*, wheel alignment, car detailing, tire rotation"),
            ("near opennow best reviews", "auto repair shop*, mechanic"),
            ("cost near diy",
             "brake pad replacement, car battery replacement, windshield repair, ac recharge, timing belt replacement, transmission repair"),
            ("best cheap reviews vs", "all season tires, synthetic oil, jump starter"),
            ("meaning codes", "check engine light"),
        ],
        "tasks": ["change a tire", "jump start a car", "check tire pressure", "change your oil", "reset the check engine light"],
    },
    ("Automotive", "Car Buying"): {
        "competition": 9,
        "groups": [
            ("near sale cheap", "used cars*, used trucks"),
            ("near reviews best", "car dealership"),
            ("near online", "car auction"),
            ("best cheap reviews year vs sale families", "suv*, minivan, hybrid suv"),
            ("best cheap reviews year vs sale", "pickup truck, family car, sports car"),
            ("deals calculator badcredit", "car lease"),
            ("rates calculator badcredit", "auto loan"),
            ("calculator", "trade in value"),
            ("what warranty", "certified pre owned cars"),
            ("what cost worth", "gap insurance"),
        ],
        "tasks": ["buy a used car", "negotiate a car price", "lease a car", "sell a car privately", "check a car's history"],
    },
    ("Real Estate", "Residential Real Estate"): {
        "competition": 14,
        "groups": [
            ("near cheap byowner", "homes for sale*, condos for sale, townhomes for sale, land for sale"),
            ("today forecast calculator year", "mortgage rates*"),
            ("near best commission reviews", "real estate agent, realtor"),
            ("near weekend", "open houses"),
            ("near cost checklist", "home inspection, home appraisal"),
            ("requirements limits rates calculator vs", "fha loan, va loan"),
            ("programs tips guide checklist", "first time home buyer"),
            ("calculator", "closing costs"),
            ("programs requirements near", "down payment assistance"),
        ],
        "tasks": ["buy a house", "sell a house fast", "get preapproved for a mortgage", "find a real estate agent", "lower closing costs"],
        "us": True,
    },
    ("Real Estate", "Commercial Real Estate"): {
        "competition": 12,
        "groups": [
            ("near", "office space for lease*, warehouse for rent, retail space for lease"),
            ("near cost daypass", "coworking space"),
            ("near sale", "industrial property"),
            ("near commission", "commercial real estate broker"),
            ("rates calculator requirements vs", "commercial mortgage, commercial real estate loan"),
            ("calculator formula what examples", "cap rate"),
            ("what examples", "triple net lease"),
            ("rules what examples", "1031 exchange"),
            ("best what", "reit"),
            ("beginners what guide", "multifamily investing"),
        ],
        "tasks": ["invest in commercial real estate", "calculate cap rate", "negotiate a commercial lease", "find office space"],
    },
    ("Real Estate", "Property Management"): {
        "competition": 8,
        "groups": [
            ("near cost fees reviews", "property management company*, airbnb property management, hoa management company"),
            ("best free pricing reviews landlords vs", "property management software, rent collection app, tenant screening"),
            ("templates free printable", "lease agreement, maintenance request form"),
            ("cost best what vs", "landlord insurance"),
            ("regulations bystate", "short term rental"),
            ("steps cost bystate", "eviction process"),
            ("bystate guide", "security deposit laws"),
            ("checklist list", "rental property tax deductions"),
        ],
        "tasks": ["screen tenants", "evict a tenant", "manage rental property", "raise rent legally", "become a property manager"],
    },
    ("Legal Services", "Personal Injury Law"): {
        "competition": 22,
        "groups": [
            ("near best fees consultation reviews",
             "personal injury lawyer*, car accident lawyer*, truck accident lawyer, workers compensation lawyer, slip and fall lawyer, "
             "motorcycle accident lawyer, medical malpractice lawyer, wrongful death lawyer, dog bite lawyer"),
            ("calculator examples average timeline", "personal injury settlement, car accident settlement"),
            ("average calculator amounts", "whiplash settlement"),
            ("calculator examples", "pain and suffering"),
            ("bystate", "statute of limitations for personal injury"),
        ],
        "tasks": ["file a personal injury claim", "choose a personal injury lawyer", "negotiate an injury settlement", "prove negligence"],
        "us": True,
    },
    ("Legal Services", "Family Law"): {
        "competition": 20,
        "groups": [
            ("near best cost consultation reviews", "divorce lawyer*, family lawyer, child custody lawyer, adoption lawyer"),
            ("cost process forms what bystate", "uncontested divorce, legal separation"),
            ("cost process near", "divorce mediation"),
            ("cost templates what", "prenuptial agreement"),
            ("calculator bystate guidelines", "child support"),
            ("calculator bystate what", "alimony"),
            ("bystate what", "grandparents rights"),
            ("templates examples", "custody agreement"),
            ("near cost athome cheap", "paternity test"),
        ],
        "tasks": ["file for divorce", "get full custody", "modify child support", "adopt a child", "write a prenup"],
    },
    ("Legal Services", "Immigration Law"): {
        "competition": 14,
        "groups": [
            ("near best cost consultation fees", "immigration lawyer*"),
            ("requirements processing fees what application vs",
             "green card*, h1b visa, k1 visa, work visa, student visa, o1 visa, eb5 visa, marriage green card"),
            ("requirements processing application", "asylum"),
            ("requirements renewal application processing", "daca"),
            ("requirements fees processing application", "naturalization"),
            ("questions practice studyguide", "citizenship test"),
        ],
        "tasks": ["apply for a green card", "become a us citizen", "renew a green card", "sponsor a spouse visa", "check uscis case status"],
        "us": True,
    },
    ("Marketing", "Search Engine Optimization"): {
        "competition": 12,
        "groups": [
            ("near cost pricing best reviews", "seo services*, seo agency, seo consultant"),
            ("best free pricing reviews alternatives vs", "seo tools, rank tracker, keyword research tool"),
            ("what guide beginners tips checklist tools examples year",
             "keyword research, local seo, technical seo, link building, on page seo, seo audit, ecommerce seo, backlinks, "
             "schema markup, core web vitals"),
        ],
        "tasks": ["do keyword research", "rank higher on google", "get backlinks", "improve page speed", "write seo friendly content"],
    },
    ("Marketing", "Social Media Marketing"): {
        "competition": 9,
        "groups": [
            ("what guide tips examples ideas tools strategy year beginners",
             "instagram marketing*, tiktok marketing, facebook ads, linkedin ads, influencer marketing, instagram reels, youtube shorts"),
            ("what examples", "ugc"),
            ("templates examples ideas", "social media strategy, content calendar"),
            ("best free pricing reviews alternatives vs", "social media scheduling tool, social media analytics tool, link in bio tool"),
            ("near cost pricing best", "social media agency"),
            ("salary jobdesc near", "social media manager"),
        ],
        "tasks": ["grow on instagram", "go viral on tiktok", "run facebook ads", "get more followers", "schedule social media posts"],
    },
    ("Marketing", "Email Marketing"): {
        "competition": 9,
        "groups": [
            ("best free pricing alternatives smb reviews vs", "email marketing software*, newsletter platform, email verification tool"),
            ("pricing alternatives reviews vs", "mailchimp"),
            ("what guide tips examples ideas templates",
             "cold email, email automation, email subject lines, welcome email, drip campaign, email deliverability, abandoned cart email, "
             "newsletter"),
        ],
        "tasks": ["build an email list", "write a cold email", "improve email open rates", "set up email automation", "avoid the spam folder"],
    },
    ("Marketing", "Content Marketing"): {
        "competition": 7,
        "groups": [
            ("what guide beginners tips examples ideas templates tools",
             "content strategy*, copywriting, blog post, case study, video marketing, editorial calendar, white paper, content audit, "
             "seo content writing, content repurposing, brand storytelling, pillar page"),
            ("near cost pricing best rates reviews", "content marketing agency, freelance writer, copywriter"),
        ],
        "tasks": ["write a blog post", "create a content strategy", "measure content marketing roi", "repurpose content", "start a blog"],
    },
}

# Other countries: (code, share of the US volume, chance a US keyword is also listed there).
OTHER_COUNTRIES = [("GB", 0.18, 0.16), ("CA", 0.11, 0.09), ("AU", 0.08, 0.07), ("DE", 0.05, 0.04)]

# The volumes keyword tools report (monthly searches, rounded to these buckets).
VOLUME_BUCKETS = [
    10, 20, 30, 40, 50, 70, 90, 110, 140, 170, 210, 260, 320, 390, 480, 590, 720, 880, 1_000, 1_300, 1_600,
    1_900, 2_400, 2_900, 3_600, 4_400, 5_400, 6_600, 8_100, 9_900, 12_100, 14_800, 18_100, 22_200, 27_100,
    33_100, 40_500, 49_500, 60_500, 74_000, 90_500, 110_000, 135_000, 165_000, 201_000,
]


def bucket(volume: float) -> int:
    """The nearest reporting bucket (in log space); 0 under 10 searches."""
    if volume < 7:
        return 0
    return min(VOLUME_BUCKETS, key=lambda b: abs(math.log(b) - math.log(volume)))


def difficulty_for(rng: random.Random, volume: int, offset: float) -> int:
    raw = 6 + 9.5 * math.log10(max(volume, 10)) + offset + rng.gauss(0, 9)
    return max(1, min(98, round(raw)))


def _fits(pattern: str, topic: str) -> bool:
    """A modifier does not repeat a word the topic already has ("cheap cheap flights")."""
    extra = set(pattern.replace("{t}", " ").split())
    return not extra & set(topic.split())


def topic_groups(spec: dict) -> list[tuple[list[str], list[tuple[str, bool]]]]:
    """(modifier keys, [(topic, is a big head term)]) per group of a sector."""
    groups = []
    for modifiers, topics in spec["groups"]:
        keys = modifiers.split()
        unknown = set(keys) - set(MODIFIERS) - {"vs"}
        if unknown:
            raise SystemExit(f"unknown modifiers {sorted(unknown)}")
        groups.append((keys, [(topic.strip().rstrip("*"), topic.strip().endswith("*")) for topic in topics.split(",")]))
    return groups


def compose_sector(rng: random.Random, industry: str, sector: str, spec: dict) -> list[dict]:
    """US keywords of one sector: head terms, modified terms, comparisons and how-tos."""
    competition = spec["competition"]
    rows: dict[str, dict] = {}

    def add(keyword: str, volume: float, offset: float) -> None:
        volume = bucket(volume)
        if volume and keyword not in rows:
            rows[keyword] = {"keyword": keyword, "volume": volume, "difficulty": difficulty_for(rng, volume, competition + offset)}

    groups = topic_groups(spec)
    heads: dict[str, float] = {}
    comparable: list[list[str]] = []
    rank = 0
    for keys, topics in groups:
        modifiers = [key for key in keys if key != "vs"]
        if "vs" in keys and len(topics) > 1:
            comparable.append([topic for topic, _ in topics])
        for topic, big in topics:
            median = math.log(60_000 if big else 30_000) - 0.16 * rank
            heads[topic] = min(201_000, max(1_000, math.exp(rng.gauss(median, 0.7))))
            rank += 1
            add(topic, heads[topic], 4)
            fitting = [key for key in modifiers if _fits(MODIFIERS[key][0], topic)]
            for key in rng.sample(fitting, k=min(len(fitting), rng.randint(3, 5))):
                pattern, share, offset = MODIFIERS[key]
                add(pattern.format(t=topic), heads[topic] * share * math.exp(rng.gauss(0, 0.6)), offset)

    # A few comparisons, each between two topics of one group (the first ones are the popular ones).
    pairs = set()
    candidates = sum(min(len(g), 6) * (min(len(g), 6) - 1) // 2 for g in comparable)
    while len(pairs) < min(3, candidates):
        group = rng.choice(comparable)
        first, second = sorted(rng.sample(group[:6], 2), key=group.index)
        pairs.add((first, second))
    for first, second in sorted(pairs):
        add(f"{first} vs {second}", min(heads[first], heads[second]) * 0.015 * math.exp(rng.gauss(0, 0.5)), -4)

    for task_rank, task in enumerate(spec["tasks"]):
        volume = math.exp(rng.gauss(math.log(9_000) - 0.3 * task_rank, 0.8))
        add(f"how to {task}", volume, -6)
        if rng.random() < 0.35:
            add(f"best way to {task}", volume * 0.08 * math.exp(rng.gauss(0, 0.5)), -6)

    for row in rows.values():
        row.update(industry=industry, sector=sector, country="US")
    return list(rows.values())


def add_countries(rng: random.Random, rows: list[dict], us_centric: bool) -> list[dict]:
    """Copies of the bigger keywords in GB, CA, AU and DE, with smaller volumes and difficulties."""
    copies = []
    for row in rows:
        weight = min(1.0, math.log10(row["volume"]) / 4) * (0.3 if us_centric else 1.0)
        for country, share, chance in OTHER_COUNTRIES:
            if rng.random() < chance * weight * 1.6:
                volume = bucket(row["volume"] * share * math.exp(rng.gauss(0, 0.4)))
                if volume:
                    difficulty = max(1, min(98, row["difficulty"] - rng.randint(2, 12)))
                    copies.append({**row, "country": country, "volume": volume, "difficulty": difficulty})
    return copies


def flag(rng: random.Random, row: dict) -> None:
    """Paid (about 10%, more likely for big keywords) and high-opportunity (about 8%)."""
    volume, difficulty = row["volume"], row["difficulty"]
    paid_chance = 0.055 + 0.05 * min(3.0, max(0.0, math.log10(volume) - 2))
    row["is_paid"] = rng.random() < paid_chance
    row["credit_cost"] = max(1, min(5, int(math.log10(volume)) - 1 + rng.randint(0, 1))) if row["is_paid"] else 0
    row["is_high_opportunity"] = volume >= 1_000 and difficulty <= 42 and rng.random() < 0.66


def generate() -> list[dict]:
    expected = {(industry, sector) for industry, (_, sectors) in INDUSTRIES.items() for sector in sectors}
    if set(SECTORS) != expected:
        raise SystemExit(f"topics and defaults disagree: missing {sorted(expected - set(SECTORS))}, unknown {sorted(set(SECTORS) - expected)}")
    rng = random.Random(SEED)
    rows = []
    for (industry, sector), spec in SECTORS.items():
        us_rows = compose_sector(rng, industry, sector, spec)
        rows += us_rows + add_countries(rng, us_rows, spec.get("us", False))
    for row in rows:
        flag(rng, row)
    rows.sort(key=lambda r: (r["industry"], r["sector"], r["keyword"], r["country"]))
    return rows


def render(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "is_high_opportunity": str(row["is_high_opportunity"]).lower(), "is_paid": str(row["is_paid"]).lower()})
    return out.getvalue()


def main(argv: list[str]) -> int:
    text = render(generate())
    if "--check" in argv:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is stale: run {Path(__file__).name} to regenerate it", file=sys.stderr)
            return 1
        print(f"{OUTPUT} is up to date")
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({text.count(chr(10)) - 1} keywords)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
