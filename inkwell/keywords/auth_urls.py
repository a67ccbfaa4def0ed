"""The library under /auth/ (identical to /keywords-library/) and the retired /auth/seed-keywords/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.keywords import views

auth_router = SimpleRouter()
auth_router.register("keywords-library", views.KeywordsLibraryViewSet, basename="auth-keywords-library")
urlpatterns = [
    *auth_router.urls,
    path("seed-keywords/", views.SeedKeywordsGoneView.as_view(), name="auth-seed-keywords-gone"),
    path("seed-keywords/<path:rest>", views.SeedKeywordsItemGoneView.as_view(), name="auth-seed-keywords-item-gone"),
]
