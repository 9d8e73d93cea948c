package main

import "github.com/spf13/cobra"

// afterCampaign runs once a campaign has finished.
func afterCampaign(cmd *cobra.Command, dir string) error { return nil }
