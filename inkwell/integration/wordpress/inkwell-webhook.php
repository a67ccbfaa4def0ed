<?php
/**
 * Plugin Name: Inkwell webhook
 * Description: Tells Inkwell when a post is updated, trashed or deleted, so that its publishing state stays true.
 * Version: 1.0
 *
 * Install: copy this file to wp-content/mu-plugins/ and define in wp-config.php
 *
 *   define( 'INKWELL_WEBHOOK_URL', 'https://inkwell.example.com/api/v1/integration/webhook/cms/' );
 *   define( 'INKWELL_API_KEY', 'iwk_xxxxxxxx.…' );      // an Inkwell API key of the site (or of the account)
 *   define( 'INKWELL_WEBHOOK_SECRET', '…' );            // the integration's webhook secret
 *   define( 'INKWELL_SITE_ID', 12 );                    // only with an account-wide API key
 */

if ( ! defined( 'ABSPATH' ) ) {
	exit;
}

function inkwell_webhook_send( $event, $post ) {
	if ( ! defined( 'INKWELL_WEBHOOK_URL' ) || ! defined( 'INKWELL_API_KEY' ) || ! defined( 'INKWELL_WEBHOOK_SECRET' ) ) {
		return;
	}
	if ( ! $post || 'post' !== $post->post_type || wp_is_post_revision( $post->ID ) || wp_is_post_autosave( $post->ID ) ) {
		return;
	}
	$modified = $post->post_modified_gmt;
	$payload  = array(
		'event' => $event,
		'post'  => array(
			'id'           => (int) $post->ID,
			'status'       => 'post.trashed' === $event ? 'trash' : $post->post_status,
			'link'         => (string) get_permalink( $post ),
			'modified_gmt' => ( $modified && 0 !== strpos( $modified, '0000' ) ) ? $modified : null,
		),
	);
	if ( defined( 'INKWELL_SITE_ID' ) ) {
		$payload['site_id'] = (int) INKWELL_SITE_ID;
	}
	$body      = wp_json_encode( $payload );
	$timestamp = (string) time();
	// The signature covers the timestamp and the exact bytes sent: Inkwell refuses anything else.
	$signature = hash_hmac( 'sha256', $timestamp . '.' . $body, INKWELL_WEBHOOK_SECRET );
	wp_remote_post(
		INKWELL_WEBHOOK_URL,
		array(
			'timeout' => 5,
			'headers' => array(
				'Content-Type'        => 'application/json',
				'Authorization'       => 'ApiKey ' . INKWELL_API_KEY,
				'X-Inkwell-Timestamp' => $timestamp,
				'X-Inkwell-Signature' => 'sha256=' . $signature,
			),
			'body'    => $body,
		)
	);
}

add_action( 'save_post', function ( $post_id, $post ) {
	// Trashing saves the post too; wp_trash_post below reports that one.
	if ( in_array( $post->post_status, array( 'trash', 'auto-draft', 'inherit' ), true ) ) {
		return;
	}
	inkwell_webhook_send( 'post.updated', $post );
}, 10, 2 );

add_action( 'wp_trash_post', function ( $post_id ) {
	inkwell_webhook_send( 'post.trashed', get_post( $post_id ) );
} );

add_action( 'before_delete_post', function ( $post_id ) {
	inkwell_webhook_send( 'post.deleted', get_post( $post_id ) );
} );
