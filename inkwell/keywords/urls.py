"""The library is served at /keywords-library/ and, identically, at /auth/keywords-library/."""

from rest_framework.routers import SimpleRouter

from inkwell.keywords import views

router = SimpleRouter()
router.register("keywords-library", views.KeywordsLibraryViewSet, basename="keywords-library")
urlpatterns = router.urls
