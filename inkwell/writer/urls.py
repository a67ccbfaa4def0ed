"""Mounted at /api/v1/writer/ (inkwell/api/urls.py)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.writer import image_views, refresh_views, review_views, views

router = SimpleRouter()
router.register("tasks", views.TaskViewSet, basename="writer-task")
router.register("content", views.ContentViewSet, basename="writer-content")
router.register("taxonomies", views.TaxonomyViewSet, basename="writer-taxonomy")
router.register("images", image_views.ImageViewSet, basename="writer-image")
router.register("refreshes", refresh_views.RefreshViewSet, basename="writer-refresh")

# Review together (#36, contract section 12): rows of one content, under it.
comments = review_views.CommentViewSet
links = review_views.ReviewLinkViewSet
review_urlpatterns = [
    path("content/<int:content_pk>/comments/", comments.as_view({"get": "list", "post": "create"}), name="writer-comment-list"),
    path("content/<int:content_pk>/comments/read/", comments.as_view({"post": "read"}, write_roles=ALL_ROLES), name="writer-comment-read"),
    path("content/<int:content_pk>/comments/<int:pk>/", comments.as_view({"patch": "partial_update", "delete": "destroy"}), name="writer-comment-detail"),
    path("content/<int:content_pk>/review_links/", links.as_view({"get": "list", "post": "create"}), name="writer-review-link-list"),
    path("content/<int:content_pk>/review_links/<int:pk>/", links.as_view({"delete": "destroy"}), name="writer-review-link-detail"),
]

# A site's editorial rules and voice (issue 35).
site_urlpatterns = [
    path("sites/<int:site_id>/editorial/", views.SiteEditorialViewSet.as_view({"get": "retrieve", "patch": "partial_update"}), name="writer-site-editorial"),
    path("sites/<int:site_id>/voice/", views.SiteVoiceViewSet.as_view({"get": "retrieve", "patch": "partial_update"}), name="writer-site-voice"),
    path("sites/<int:site_id>/voice/propose/", views.SiteVoiceViewSet.as_view({"post": "propose"}), name="writer-site-voice-propose"),
]

urlpatterns = review_urlpatterns + site_urlpatterns + router.urls
